// Display names are unique among the people present: a second "Alice" becomes "Alice (2)", so chat
// lines and name tags always say who is who. Case and surrounding spaces do not make a name new.
export const MAX_NAME_LENGTH = 32;

const norm = (name: string) => name.trim().toLowerCase();

export function uniqueName(wanted: string, taken: Iterable<string>): string {
  const base = wanted.trim().slice(0, MAX_NAME_LENGTH);
  const used = new Set([...taken].map(norm));
  if (!used.has(norm(base))) return base;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${base.slice(0, MAX_NAME_LENGTH - suffix.length).trimEnd()}${suffix}`;
    if (!used.has(norm(candidate))) return candidate;
  }
}
