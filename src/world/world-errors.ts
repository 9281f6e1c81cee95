// Typed errors thrown by the pure world code (inputs never throw: they return InputResult errors).

/** A world directory that cannot be loaded. The message names the file and, when known, the field. */
export class WorldLoadError extends Error {
  readonly file: string;
  readonly field: string | undefined;
  constructor(file: string, field: string | undefined, problem: string) {
    super(field ? `${file}: ${field}: ${problem}` : `${file}: ${problem}`);
    this.name = "WorldLoadError";
    this.file = file;
    this.field = field;
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
