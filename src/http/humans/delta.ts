// Per-viewer entity deltas: what entered the viewer's interest, what changed, what left.
import type { EntityView } from "../../world/types.ts";
import type { WireEntity } from "./protocol.ts";

const round1 = (n: number) => Math.round(n * 10) / 10;

export function toWire(view: EntityView): WireEntity {
  return {
    id: view.id,
    kind: view.kind === "agent" ? "agent" : "human",
    name: view.name,
    x: round1(view.pos.x),
    y: round1(view.pos.y),
    tx: view.tile.tx,
    ty: view.tile.ty,
    facing: view.facing,
  };
}

export interface EntityDelta {
  add: WireEntity[];
  update: (Partial<WireEntity> & { id: string })[];
  remove: string[];
}

const FIELDS = ["name", "x", "y", "tx", "ty", "facing", "kind"] as const;

/** Compares what the viewer last received (`sent`, updated in place) with what it should see now. */
export function diffEntities(sent: Map<string, WireEntity>, visibleNow: readonly WireEntity[]): EntityDelta {
  const delta: EntityDelta = { add: [], update: [], remove: [] };
  const seen = new Set<string>();
  for (const next of visibleNow) {
    seen.add(next.id);
    const prev = sent.get(next.id);
    if (!prev) {
      delta.add.push(next);
      sent.set(next.id, next);
      continue;
    }
    let change: (Partial<WireEntity> & { id: string }) | undefined;
    for (const field of FIELDS) {
      if (prev[field] !== next[field]) {
        change ??= { id: next.id };
        (change as Record<string, unknown>)[field] = next[field];
      }
    }
    if (change) {
      delta.update.push(change);
      sent.set(next.id, next);
    }
  }
  for (const id of sent.keys()) {
    if (!seen.has(id)) {
      delta.remove.push(id);
      sent.delete(id);
    }
  }
  return delta;
}

export const isEmptyDelta = (d: EntityDelta) => !d.add.length && !d.update.length && !d.remove.length;
