// Small helpers for driving a World in tests.
import type { Input, InputResult, StepResult } from "../types.ts";
import type { World } from "../world.ts";

export function join(entityId: string, joinRoomId?: string): Input {
  return {
    kind: "join",
    entityId,
    actorKind: entityId.startsWith("hum_") ? "human" : "agent",
    name: entityId.slice(4),
    ...(joinRoomId ? { joinRoomId } : {}),
  };
}

/** Steps once with the inputs and returns the single result (throws if there is not exactly one). */
export function one(world: World, input: Input): InputResult {
  const r = world.step([input]);
  if (r.results.length !== 1) throw new Error("expected one result");
  return r.results[0]!;
}

export function run(world: World, ticks: number): StepResult[] {
  const out: StepResult[] = [];
  for (let i = 0; i < ticks; i++) out.push(world.step([]));
  return out;
}

/** Places an actor on a tile by teleport-free means: join, then walk there. */
export function walkTo(world: World, entityId: string, tx: number, ty: number, maxTicks = 400): void {
  const r = one(world, { kind: "moveTo", entityId, dest: { tx, ty } });
  if (!r.ok) throw new Error(`moveTo failed: ${r.error.code} ${r.error.message}`);
  for (let i = 0; i < maxTicks; i++) {
    const e = world.getEntity(entityId)!;
    if (e.tile.tx === tx && e.tile.ty === ty && e.speed === 0) return;
    world.step([]);
  }
  throw new Error(`${entityId} did not reach (${tx}, ${ty})`);
}
