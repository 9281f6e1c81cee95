// An entity as the browser is shown it (positions in whole world units: the client smooths between
// patches anyway, and short numbers are most of a delta's bytes). Deltas: patch-fragments.ts.
import type { EntityView } from "../../aic/reads.ts";
import type { WireEntity } from "./protocol.ts";

export function toWire(view: EntityView, h: number): WireEntity {
  return {
    h,
    id: view.id,
    kind: view.kind === "agent" ? "agent" : "human",
    name: view.name,
    x: Math.round(view.pos.x),
    y: Math.round(view.pos.y),
    tx: view.tile.tx,
    ty: view.tile.ty,
    facing: view.facing,
    ...(view.thinking ? { thinking: true } : {}),
  };
}
