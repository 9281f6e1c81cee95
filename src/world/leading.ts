// Walking with someone (the `lead` action, actions/lead.ts): a walker that leads a follower keeps
// within a few tiles of them. Each tick, before it walks (movement.ts `walkAll`), the rule decides
// whether it walks on or waits: it waits while the follower is more than `behindTiles` behind, and
// before stepping onto a portal or a door until they are within `nearTiles`; once waiting it walks on
// only when they are that near again. One not in the room (or not in the world yet: a traveller) is
// far behind. It ends with a typed outcome, kept on the walker until its next move (lead-state.ts):
// `arrived_together` (at its goal, or through the portal, with them near), `left_behind` (it waited
// `giveUpSec` of simulation time in all: it stops where it is) or `blocked` (its way closed and no
// other was found). The same rule holds at every door, for every walker, whoever sent the walk.
// Pure: simulation ticks only.
import type { Actor } from "./actor.ts";
import type { WorldCore } from "./core.ts";
import { type Lead, type LeadOutcome, leadEnded } from "./lead-state.ts";
import { stop } from "./placement.ts";
import type { Room } from "./room.ts";

export const LEADING = {
  /** The follower is "with" it within this many tiles (Chebyshev): it steps through a door, or
   * arrives, only then; a walker that waits walks on once they are this near. */
  nearTiles: 2,
  /** It waits while the follower is further behind than this. */
  behindTiles: 4,
  /** Simulation seconds it waits in all before it gives up (left_behind). */
  giveUpSec: 60,
} as const;

/** A tile one steps through: a portal (it acts on arrival) or a door. */
function threshold(room: Room, index: number): boolean {
  if (room.onEnter.has(index)) return true;
  const tx = index % room.width;
  const ty = (index - tx) / room.width;
  return room.objects.some(
    (o) => o.def.objectType === "door" && o.def.tile.tx === tx && o.def.tile.ty === ty,
  );
}

function end(w: WorldCore, actor: Actor, lead: Lead, outcome: LeadOutcome): void {
  lead.state = outcome;
  if (outcome !== "arrived_together") stop(actor);
  const follower = w.actors.get(lead.with)?.name ?? lead.with;
  w.remember(
    actor.id,
    "moved",
    outcome === "arrived_together"
      ? `arrived with ${follower}`
      : outcome === "left_behind"
        ? `gave up waiting for ${follower}`
        : `could not go on with ${follower}: the way is blocked`,
  );
}

/** Whether a leading walker holds still this tick (called by walkAll before it walks the actor in
 * `room`, its room now). Sets the lead's state; an ended lead holds nothing. */
export function holdsBack(w: WorldCore, room: Room, actor: Actor): boolean {
  const lead = actor.lead;
  if (!lead || leadEnded(lead.state)) return false;
  // Through a portal: it stepped on only with the follower near (below).
  if (actor.roomId !== lead.roomId) {
    end(w, actor, lead, "arrived_together");
    return false;
  }
  // One not in the world (yet: a traveller from another world comes through a portal) is far behind.
  const follower = w.actors.get(lead.with);
  const gap =
    follower && follower.roomId === actor.roomId
      ? Math.max(Math.abs(follower.tx - actor.tx), Math.abs(follower.ty - actor.ty))
      : Number.POSITIVE_INFINITY;
  const walking = actor.pathIndex < actor.path.length;
  if (!walking) {
    if (actor.ty * room.width + actor.tx !== lead.goal) {
      end(w, actor, lead, "blocked");
      return false;
    }
    if (gap <= LEADING.nearTiles) {
      end(w, actor, lead, "arrived_together");
      return false;
    }
    return wait(w, actor, lead);
  }
  const next = actor.path[actor.pathIndex]!;
  const here = actor.ty * room.width + actor.tx;
  const within =
    lead.state === "waiting" || (next !== here && threshold(room, next))
      ? LEADING.nearTiles
      : LEADING.behindTiles;
  if (gap <= within) {
    lead.state = "walking";
    return false;
  }
  return wait(w, actor, lead);
}

function wait(w: WorldCore, actor: Actor, lead: Lead): boolean {
  lead.state = "waiting";
  lead.waitedTicks += 1;
  if (lead.waitedTicks >= LEADING.giveUpSec * w.definition.tickRate) end(w, actor, lead, "left_behind");
  return true;
}
