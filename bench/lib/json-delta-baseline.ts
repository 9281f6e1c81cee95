// The web wire before binary frames (src/http/humans/delta.ts up to commit 4ada90c), kept only as the
// "before" of bench/web-encode.bench.ts: a per-viewer diff against what the viewer has, then one
// JSON.stringify per viewer per patch. Not used by the product.
import type { WireEntity } from "../../src/http/humans/protocol.ts";

type JsonEntity = Omit<WireEntity, "h">;

export interface EntityDelta {
  add: JsonEntity[];
  update: (Partial<JsonEntity> & { id: string })[];
  remove: string[];
}

const FIELDS = ["name", "x", "y", "tx", "ty", "facing", "kind", "look"] as const;

/** Compares what the viewer last received (`sent`, updated in place) with what it should see now. */
export function diffEntities(sent: Map<string, JsonEntity>, visibleNow: readonly JsonEntity[]): EntityDelta {
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
    let change: (Partial<JsonEntity> & { id: string }) | undefined;
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

/** The JSON delta message as it was sent, leaving out empty lists. */
export function deltaMessage(tick: number, d: EntityDelta) {
  return {
    type: "delta" as const,
    tick,
    ...(d.add.length ? { add: d.add } : {}),
    ...(d.update.length ? { update: d.update } : {}),
    ...(d.remove.length ? { remove: d.remove } : {}),
  };
}
