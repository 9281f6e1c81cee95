// Opens one world for hosting: loads the world directory, restores the saved snapshot when there is
// a good one (a bad one is set aside, never overwritten) and wraps it in its tick host. Saving is the
// other half. Nothing here knows about adapters or plugin config: the plugin passes plain options.
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import { loadWorldDir } from "./load-world-dir.ts";
import { readSnapshotFile, setAsideSnapshotFile, writeSnapshotFile } from "./persistence.ts";
import { describe, type RuntimeLogger, WorldRuntime } from "./world-runtime.ts";

export interface OpenWorldOptions {
  worldDir: string;
  /** Overrides the world's own tick rate. */
  tickRate?: number;
  /** Must be a room of the world: where newcomers join. */
  defaultRoomId: string;
  /** Where the world is saved; persistence is off without it. */
  snapshotFile: string | undefined;
  logger: RuntimeLogger;
}

export interface OpenedWorld {
  definition: WorldDefinition;
  runtime: WorldRuntime;
  /** How the world came to be: fresh from the directory or restored from a saved snapshot. */
  origin: "fresh" | "restored";
}

export async function openWorld(options: OpenWorldOptions): Promise<OpenedWorld> {
  const { snapshotFile, logger } = options;
  const loaded = await loadWorldDir(options.worldDir);
  const definition: WorldDefinition = options.tickRate ? { ...loaded, tickRate: options.tickRate } : loaded;
  if (!definition.rooms[options.defaultRoomId]) {
    throw new Error(
      `openclawworld: defaultRoomId "${options.defaultRoomId}" is not a room of world "${definition.name}" (rooms: ${Object.keys(definition.rooms).join(", ")})`,
    );
  }
  let world = World.create(definition);
  let origin: OpenedWorld["origin"] = "fresh";
  if (snapshotFile) {
    const saved = await readSnapshotFile(snapshotFile).catch((error: unknown) => {
      logger.warn(`openclawworld: could not read ${snapshotFile}: ${describe(error)}`);
      return undefined;
    });
    if (saved) {
      try {
        world = World.restore(definition, saved);
        origin = "restored";
        logger.info(`openclawworld: restored world at tick ${world.tick} from ${snapshotFile}`);
      } catch (error) {
        const aside = await setAsideSnapshotFile(snapshotFile, `rejected-${Date.now()}`);
        logger.warn(
          `openclawworld: saved world not restored (${describe(error)}); kept it at ${aside}, starting fresh`,
        );
      }
    }
  }
  return { definition, runtime: new WorldRuntime(world, logger), origin };
}

/** Writes the world's current state where openWorld will find it next time. */
export async function saveWorld(runtime: WorldRuntime, snapshotFile: string | undefined): Promise<void> {
  if (!snapshotFile) return;
  await writeSnapshotFile(snapshotFile, runtime.world.snapshot());
}
