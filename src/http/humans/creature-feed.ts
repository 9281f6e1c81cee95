// Where a room's creatures are, for its browsers. A creature moves without events (the world keeps
// its steps out of every event log, so agents' feeds never fill with them), so a patch carries the
// room's creatures whenever one moved or changed what it does since the browser was last told: one
// message per room per patch, shared by every viewer there.
import { CREATURE_TYPE, type WorldReads } from "../../aic/reads.ts";
import { PreparedText } from "./prepared-text.ts";
import type { WireObject } from "./protocol.ts";
import type { HumanSession } from "./session.ts";
import { toWireObjects } from "./wire-entity.ts";

type Reads = Pick<WorldReads, "definition" | "objectView" | "getEntity">;

interface RoomCreatures {
  key: string;
  objects: WireObject[];
  message?: PreparedText;
}

const isCreature = (objectType: string) => objectType === CREATURE_TYPE;

export class CreatureFeed {
  private readonly shown = new WeakMap<HumanSession, string>();
  /** Each room's creatures as of the patch going out (empty between patches). */
  private readonly patch = new Map<string, RoomCreatures>();
  private inPatch = false;

  private readonly reads: Reads;

  constructor(reads: Reads) {
    this.reads = reads;
  }

  private creatures(roomId: string): RoomCreatures {
    const known = this.patch.get(roomId);
    if (known) return known;
    const objects = toWireObjects(this.reads, roomId, isCreature);
    const key = JSON.stringify(objects.map((o) => [o.id, o.tx, o.ty, o.state.facing, o.state.doing]));
    const made = { key, objects };
    if (this.inPatch) this.patch.set(roomId, made);
    return made;
  }

  begin(): void {
    this.inPatch = true;
  }

  end(): void {
    this.inPatch = false;
    this.patch.clear();
  }

  /** A browser shown the room whole (its objects where they are now). */
  entered(s: HumanSession, roomId: string): void {
    this.shown.set(s, this.creatures(roomId).key);
  }

  /** The room's creatures for this browser, when they changed since it was last told. */
  next(s: HumanSession, roomId: string): PreparedText | undefined {
    const now = this.creatures(roomId);
    if (this.shown.get(s) === now.key) return undefined;
    this.shown.set(s, now.key);
    now.message ??= new PreparedText({ type: "creatures", objects: now.objects });
    return now.message;
  }
}
