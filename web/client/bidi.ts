// Names come from other people: shown inside a sentence or beside a label, a name written right to
// left (or one carrying a stray direction mark) would reorder its surroundings — the ":" after it, the
// "· AI" badge, the words of a notice. First-strong isolates (FSI ... PDI) keep it to itself.

/** A name as it is shown among other text. */
export function isolate(name: string): string {
  return `\u2068${name}\u2069`;
}
