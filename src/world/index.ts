// Public surface of the pure world core.
export { computeSceneHash, parseWorld, type WorldFiles } from "./definition.ts";
export { SnapshotMismatchError, WorldLoadError } from "./errors.ts";
export { objectType, objectTypes } from "./objects/registry.ts";
export { canonicalHash, canonicalJson } from "./snapshot.ts";
export * from "./types.ts";
export { World } from "./world.ts";
