// The browser's interest rule before the visible entity limit (src/http/humans/interest.ts and
// view-sync.ts `interestingActors` up to commit ebf76a0), kept only as the "before" of the view-sync
// and web-encode benchmarks: every actor within the enter radius (kept to the exit radius), no cap,
// found per viewer by World.queryRadius (an entity view per hit, the hits sorted by distance), with
// string sets. Not used by the product.
import type { WorldReads } from "../../src/aic/reads.ts";
import type { EntityView } from "../../src/world/types.ts";

export interface Positioned {
  id: string;
  distance: number;
}

export class UncappedInterestSet {
  readonly enterRadius: number;
  readonly exitRadius: number;
  private members = new Set<string>();

  constructor(enterRadius: number, exitRadius: number) {
    this.enterRadius = enterRadius;
    this.exitRadius = exitRadius;
  }

  update(withinExit: readonly Positioned[], alwaysInclude?: string): Set<string> {
    const next = new Set<string>();
    for (const c of withinExit) {
      if (
        c.id === alwaysInclude ||
        c.distance <= this.enterRadius ||
        (this.members.has(c.id) && c.distance <= this.exitRadius)
      ) {
        next.add(c.id);
      }
    }
    if (alwaysInclude) next.add(alwaysInclude);
    this.members = next;
    return next;
  }

  clear(): void {
    this.members.clear();
  }
}

/** The actors a viewer saw: those near it, with the radius hysteresis only. */
export function uncappedInterestingActors(
  reads: Pick<WorldReads, "queryRadius">,
  s: { interest: UncappedInterestSet; actor: { entityId: string } },
  self: EntityView,
): EntityView[] {
  const hits = reads.queryRadius(self.roomId, self.pos, s.interest.exitRadius);
  const candidates: { id: string; distance: number }[] = [];
  for (const h of hits)
    if (h.entity.kind !== "object") candidates.push({ id: h.entity.id, distance: h.distance });
  const ids = s.interest.update(candidates, s.actor.entityId);
  const visible: EntityView[] = [];
  for (const h of hits) if (h.entity.kind !== "object" && ids.has(h.entity.id)) visible.push(h.entity);
  return visible;
}
