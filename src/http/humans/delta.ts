// Per-viewer entity deltas: what entered the viewer's interest, what changed, what left.
import type { EntityView } from "../../world/types.ts";
import type { WireEntity } from "./protocol.ts";

// Whole world units (one pixel at zoom 1): the client smooths between ticks anyway, and shorter
// numbers are most of a delta's bytes.
const round = (n: number) => Math.round(n);

export function toWire(view: EntityView): WireEntity {
  return {
    id: view.id,
    kind: view.kind === "agent" ? "agent" : "human",
    name: view.name,
    x: round(view.pos.x),
    y: round(view.pos.y),
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

const FIELDS = ["name", "x", "y", "tx", "ty", "facing", "kind", "look"] as const; // "away" comes in its own presence message

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

/** The wire message for a delta, leaving out empty lists. */
export function deltaMessage(tick: number, d: EntityDelta) {
  return {
    type: "delta" as const,
    tick,
    ...(d.add.length ? { add: d.add } : {}),
    ...(d.update.length ? { update: d.update } : {}),
    ...(d.remove.length ? { remove: d.remove } : {}),
  };
}
