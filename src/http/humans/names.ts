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

/** Whether `actual` is what uniqueName gave for `requested` (itself, or it suffixed, cut short to
 * fit): a resumed session asking for the name it already has is the same person coming back. */
export function isNameFor(requested: string, actual: string): boolean {
  const base = norm(requested).slice(0, MAX_NAME_LENGTH);
  const have = norm(actual);
  if (have === base) return true;
  const suffixed = /^(.*) \(\d+\)$/.exec(have);
  if (!suffixed) return false;
  const stem = suffixed[1]!;
  // Cut short only when the name and its suffix did not fit together.
  return (
    stem === base || (base.startsWith(stem) && base.length + have.length - stem.length > MAX_NAME_LENGTH)
  );
}
