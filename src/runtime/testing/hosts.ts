// Tests' hosts of the bundled world over a real store, and the crash they simulate.
import { BUNDLED_WORLD_DIR } from "../load-world-dir.ts";
import { type OpenedWorld, type OpenWorldOptions, openWorld } from "../open-world.ts";

/** Opens the bundled world (lobby) over the store at `storeFile`. */
export function openBundledHost(
  storeFile: string,
  options: Pick<OpenWorldOptions, "logger"> & Partial<OpenWorldOptions>,
): Promise<OpenedWorld> {
  return openWorld({ worldDir: BUNDLED_WORLD_DIR, defaultRoomId: "lobby", storeFile, ...options });
}

/** The process died: nothing is saved or flushed beyond what each commit already wrote. */
export function crashHost(h: OpenedWorld): void {
  h.runtime.stop();
  h.store?.close();
  h.mirror?.close();
  h.history?.close();
}
