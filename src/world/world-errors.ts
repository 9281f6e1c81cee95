// Typed errors thrown by the pure world code (inputs never throw: they return InputResult errors).

/** Where in a file's text a problem is (1-based), for a file that does not parse. */
export interface TextPosition {
  line: number;
  column: number;
}

/** A world directory that cannot be loaded. The message names the file and, when known, the field
 * (a value that parsed but is wrong) or the line and column (text that does not parse), written
 * `file:line:column:` as compilers do, so an editor or terminal can jump to it. */
export class WorldLoadError extends Error {
  readonly file: string;
  readonly field: string | undefined;
  readonly at: TextPosition | undefined;
  constructor(file: string, field: string | undefined, problem: string, at?: TextPosition) {
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    super(field ? `${where}: ${field}: ${problem}` : `${where}: ${problem}`);
    this.name = "WorldLoadError";
    this.file = file;
    this.field = field;
    this.at = at;
  }
}

/** A snapshot that belongs to another world, scene or format. */
export class SnapshotMismatchError extends Error {
  readonly reason: "format" | "world" | "sceneHash" | "state";
  constructor(reason: "format" | "world" | "sceneHash" | "state", message: string) {
    super(message);
    this.name = "SnapshotMismatchError";
    this.reason = reason;
  }
}
