// An input's `expect` guards, checked against the state its caller observed (the start of the tick):
// one that fails rejects the input with `conflict` naming the guard, and nothing is applied.
import { fail, type Outcome, type WorldCore } from "./core.ts";
import { objectTile } from "./room.ts";
import type { Input } from "./types.ts";

export function guardFailure(
  w: WorldCore,
  input: Input,
  guard: NonNullable<Input["guards"]>[number],
  startTick: number,
  startHash: () => string,
): Outcome | undefined {
  const conflict = (actual: unknown) =>
    fail("conflict", `guard ${guard.kind} failed`, { guard: { ...guard }, actual: actual ?? null });
  switch (guard.kind) {
    case "tick_is":
      return guard.tick === startTick ? undefined : conflict(startTick);
    case "snapshot_hash_is": {
      const hash = startHash();
      return guard.hash === hash ? undefined : conflict(hash);
    }
    case "entity_near": {
      const self = w.actors.get(input.entityId);
      const other = w.actors.get(guard.entityId);
      const otherPos = other ?? w.objects.get(guard.entityId);
      if (!self || !otherPos) return conflict(null);
      let ox: number;
      let oy: number;
      let roomId: string;
      if (other) {
        ox = other.x;
        oy = other.y;
        roomId = other.roomId;
      } else {
        const obj = w.objects.get(guard.entityId)!;
        const ts = w.rooms.get(obj.def.roomId)!.tileSize;
        const at = objectTile(obj);
        ox = (at.tx + 0.5) * ts;
        oy = (at.ty + 0.5) * ts;
        roomId = obj.def.roomId;
      }
      if (roomId !== self.roomId) return conflict(null);
      const ts = w.rooms.get(self.roomId)!.tileSize;
      const distTiles = Math.hypot(ox - self.x, oy - self.y) / ts;
      return distTiles <= guard.withinTiles ? undefined : conflict(distTiles);
    }
    case "object_state_is": {
      const obj = w.objects.get(guard.objectId);
      const actual = obj ? (obj.state[guard.field] ?? null) : null;
      return actual === guard.equals ? undefined : conflict(actual);
    }
    case "view_is": {
      const actual = w.viewOf(input.entityId);
      return actual === guard.view ? undefined : conflict(actual);
    }
  }
}
