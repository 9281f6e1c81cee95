// A scratch set of wire handles for one pass at a time (a viewer's members, the actors in its frame):
// marking and testing are an array write and read, with nothing to clear between passes (each pass
// has its own stamp). Handles are small integers (PatchFragments.handle) so the array stays small.
export class HandleMarks {
  private marks = new Int32Array(1024);
  private stamp = 0;

  /** Starts a new, empty set (the previous one is forgotten at once). */
  begin(): void {
    this.stamp += 1;
    if (this.stamp === 0x7fff_ffff) {
      this.marks.fill(0);
      this.stamp = 1;
    }
  }

  add(handle: number): void {
    if (handle >= this.marks.length) {
      const grown = new Int32Array(Math.max(handle + 1, this.marks.length * 2));
      grown.set(this.marks);
      this.marks = grown;
    }
    this.marks[handle] = this.stamp;
  }

  has(handle: number): boolean {
    return handle < this.marks.length && this.marks[handle] === this.stamp;
  }
}
