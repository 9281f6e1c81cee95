// Reloading a running world's definition from its directory, without a restart. The new definition
// is checked whole first (a file that does not parse or validate refuses the reload and the running
// world stays as it is); then it enters the world as an input, the host's `redefine`, so the tick
// log, the replay history and the fan-out replica all hold the change at its tick. The store names
// the new scene in the transaction that logs that tick, keeping the replaced definition beside it
// (open-world.ts, the journal), so a restart on the new files opens where the reload left it, from
// a snapshot of either side; the new world's base snapshot then follows in slices.
import { definitionToWire } from "../world/definition-wire.ts";
import { type Relocation, redefineProblem } from "../world/fit-definition.ts";
import { OPERATOR_ENTITY_ID } from "../world/ids.ts";
import type { WorldDefinition } from "../world/types.ts";
import { WorldLoadError } from "../world/world-errors.ts";
import { loadDefinition, type OpenedWorld, type OpenWorldOptions, saveWorldInSlices } from "./open-world.ts";
import { describe } from "./world-runtime.ts";

/** What a reload did: applied at a tick, found nothing new, or refused with the reason. */
export type ReloadOutcome =
  | { status: "applied"; tick: number; sceneHash: string; previousSceneHash: string; moved: Relocation[] }
  | { status: "unchanged"; sceneHash: string }
  | {
      status: "refused";
      /** `invalid`: the files do not load (file, line or field below); `restart`: a change the
       * running world cannot take live; `cluster`: not in cluster mode; `failed`: the world refused. */
      reason: "invalid" | "restart" | "cluster" | "failed";
      message: string;
      file?: string;
      line?: number;
      column?: number;
      field?: string;
    };

export type ReloadSource = Pick<OpenWorldOptions, "worldDir" | "tickRate" | "defaultRoomId">;

/** The refusal of files that do not load, naming the file and the line or field. */
export function refusalOf(error: unknown): Extract<ReloadOutcome, { status: "refused" }> {
  if (error instanceof WorldLoadError)
    return {
      status: "refused",
      reason: "invalid",
      message: error.message,
      file: error.file,
      ...(error.at ? { line: error.at.line, column: error.at.column } : {}),
      ...(error.field ? { field: error.field } : {}),
    };
  return { status: "refused", reason: "invalid", message: describe(error) };
}

/** Loads the directory again and, when it differs and is valid, gives the running world the new
 * definition. Resolves once the change is durable and the new world's base snapshot stored (or
 * refused); never throws for bad files. */
export async function reloadWorld(host: OpenedWorld, source: ReloadSource): Promise<ReloadOutcome> {
  let next: WorldDefinition;
  try {
    next = await loadDefinition(source);
  } catch (error) {
    return refusalOf(error);
  }
  const current = host.runtime.world.definition;
  if (next.sceneHash === current.sceneHash) return { status: "unchanged", sceneHash: current.sceneHash };
  const problem = redefineProblem(current, next);
  if (problem) return { status: "refused", reason: "restart", message: problem };
  const result = await host.runtime.submit({
    kind: "redefine",
    entityId: OPERATOR_ENTITY_ID,
    definition: definitionToWire(next),
  });
  if (!result.ok) return { status: "refused", reason: "failed", message: result.error.message };
  // The journal's commit of that tick already gave the host, the store, the history and the mirror
  // the new scene. A base snapshot of the new world, written without stalling the ticks, spares a
  // restart the replay through the change; until it is stored a restart replays from the last one.
  const live = host.runtime.world.definition;
  // Without a store there is no journal: the host takes the new definition here.
  host.definition = live;
  await saveWorldInSlices(host, { afterOneUnderWay: true });
  const value = result.value as { moved?: Relocation[] } | undefined;
  return {
    status: "applied",
    tick: result.tick,
    sceneHash: live.sceneHash,
    previousSceneHash: current.sceneHash,
    moved: value?.moved ?? [],
  };
}
