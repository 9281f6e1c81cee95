// The view sync before the visible entity limit (src/http/humans/view-sync.ts at commit ebf76a0), kept
// only as the "before" of bench/view-sync.bench.ts, run in the same process on the same world: per
// viewer per patch World.queryRadius (an entity view per hit, sorted), string interest sets with no
// cap, a Map lookup per visible actor for its wire form, and ~1/s a radar filtered and serialized per
// viewer. Not used by the product. Only the imports and the session type differ from the original.
import path from "node:path";
import type { TickInfo, WorldReads } from "../../src/aic/reads.ts";
import { ChatHistory } from "../../src/http/humans/chat-history.ts";
import { PatchFragments } from "../../src/http/humans/patch-fragments.ts";
import type { PresenceState } from "../../src/http/humans/presence-state.ts";
import type {
  ServerMessage,
  WireEntity,
  WireEvent,
  WireObject,
  WireRoom,
  WireRosterEntry,
} from "../../src/http/humans/protocol.ts";
import type { HumanSession as ProductSession } from "../../src/http/humans/session.ts";
import { toWire } from "../../src/http/humans/wire-entity.ts";
import { wireEvent } from "../../src/http/humans/wire-events.ts";
import type { EntityView, WorldApi } from "../../src/world/types.ts";
import { type UncappedInterestSet, uncappedInterestingActors } from "./uncapped-interest-baseline.ts";

/** A session as it was: the same fields, an uncapped interest set. */
export type HumanSession = Omit<ProductSession, "interest"> & { interest: UncappedInterestSet };

// src/http/humans/radar.ts at ebf76a0: the feed filtered and serialized per viewer.
type RadarDot = [string, "h" | "a", number, number];
const radarEveryTicks = (tickRate: number) => Math.max(1, Math.round(tickRate));
function roomDots(world: Pick<WorldApi, "actorsInRoom">, roomId: string): RadarDot[] {
  return world
    .actorsInRoom(roomId)
    .map((a): RadarDot => [a.id, a.kind === "agent" ? "a" : "h", a.tile.tx, a.tile.ty]);
}
class RadarView {
  private last = "";
  next(dots: readonly RadarDot[], detailed: ReadonlyMap<string, unknown>): RadarDot[] | undefined {
    const mine = dots.filter((d) => !detailed.has(d[0]));
    const key = JSON.stringify(mine);
    if (key === this.last) return undefined;
    this.last = key;
    return mine;
  }
  reset(): void {
    this.last = "";
  }
}

const BACKPRESSURE_BYTES = 1 << 20;
const EVENTS_PER_PUSH = 200;
/** A socket over BACKPRESSURE_BYTES for this long is closed (code 4008) instead of waited for. */
export const SLOW_CLIENT_MS = 10_000;
export const SLOW_CLIENT_CLOSE = { code: 4008, reason: "too slow: updates could not be delivered" } as const;
/** After an operator restore, a browser whose character does not exist in the restored world is closed
 * with this; it reconnects by itself and, its resume token finding no character, joins afresh. */
export const WORLD_RESTORED_CLOSE = { code: 4010, reason: "the world was restored; join again" } as const;

export interface ViewSyncOptions {
  /** Send patches every this many ticks (1 = every tick). */
  patchEveryTicks?: number;
  /** Monotonic milliseconds (tests pass a fake). */
  now?: () => number;
}

export interface RoomView {
  entities: WireEntity[];
  objects: WireObject[];
  roster: WireRosterEntry[];
  /** Recent room-wide chat, so a newcomer (or a reload) sees the conversation. */
  history: WireEvent[];
}

export interface ViewSync {
  roomInfo(roomId: string): WireRoom;
  /** Start showing a room: resets what the session has been sent and returns the full view. */
  enterRoom(s: HumanSession, self: EntityView, afterSeq: number): RoomView;
  /** After a tick: every connected session gets its room change, delta and events (and ~1/s the
   * room-wide radar of those beyond its interest range). */
  pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void;
  /** Everyone in a room by name, with presence (the roster a browser shows). */
  roster(roomId: string): WireRosterEntry[];
}

export function createViewSyncBefore(
  reads: WorldReads,
  /** A JSON message, or a binary delta frame. */
  send: (s: HumanSession, message: ServerMessage | Uint8Array) => void,
  warn: (message: string) => void,
  presence: PresenceState,
  options: ViewSyncOptions = {},
): ViewSync {
  const patchEvery = Math.max(1, Math.floor(options.patchEveryTicks ?? 1));
  const now = options.now ?? (() => performance.now());
  let history = new ChatHistory();
  /** The world (`reads.worldEpoch`) the history and each browser's view were built from: when the
   * operator restores another, every browser gets the whole view again (a "room" message) instead of
   * a delta against a world that no longer exists, and the chat of the abandoned timeline goes. */
  let historyEpoch = reads.worldEpoch;
  const viewEpoch = new WeakMap<HumanSession, number>();
  /** Since when each session's socket has been over the backpressure limit. */
  const behindSince = new WeakMap<HumanSession, number>();
  /** Each actor's wire form and delta records, made once per patch and shared by every viewer. */
  const fragments = new PatchFragments();
  const decorated = (entity: EntityView, h: number) => presence.decorate(toWire(entity, h));
  const wireOf = (entity: EntityView): WireEntity => fragments.wire(entity, decorated);
  const radars = new WeakMap<HumanSession, RadarView>();
  const radarOf = (s: HumanSession) => {
    let view = radars.get(s);
    if (!view) {
      view = new RadarView();
      radars.set(s, view);
    }
    return view;
  };

  function roomInfo(roomId: string): WireRoom {
    const room = reads.definition.rooms[roomId]!;
    return {
      roomId,
      name: room.name,
      mapUrl: `/world/${room.mapFile.split(path.sep).join("/")}`,
      widthTiles: room.widthTiles,
      heightTiles: room.heightTiles,
      tileSize: room.tileSize,
      tickRate: reads.definition.tickRate,
    };
  }

  function roomObjects(roomId: string): WireObject[] {
    return reads.definition.rooms[roomId]!.objects.flatMap((o) => {
      const view = reads.objectView(o.id);
      return view
        ? [
            {
              id: o.id,
              objectType: view.objectType,
              name: o.name,
              tx: o.tile.tx,
              ty: o.tile.ty,
              state: view.state,
              version: view.version,
              affords: view.affords,
            },
          ]
        : [];
    });
  }

  /** The actors this session should see now, as wire entities. */
  const visibleActors = (s: HumanSession, self: EntityView): WireEntity[] =>
    uncappedInterestingActors(reads, s, self).map(wireOf);

  /** Everyone in the room by name (no positions): the presence list; positions stream by interest. */
  function roster(roomId: string): WireRosterEntry[] {
    return reads.actorsInRoom(roomId).map((a) =>
      presence.decorateRoster({
        id: a.id,
        name: a.name,
        kind: a.kind === "agent" ? ("agent" as const) : ("human" as const),
      }),
    );
  }

  function enterRoom(s: HumanSession, self: EntityView, afterSeq: number): RoomView {
    viewEpoch.set(s, reads.worldEpoch);
    s.roomId = self.roomId;
    s.lastSeq = afterSeq;
    s.sent.clear();
    s.interest.clear();
    radarOf(s).reset();
    const entities = visibleActors(s, self);
    for (const e of entities) s.sent.set(e.id, e);
    return {
      entities,
      objects: roomObjects(self.roomId),
      roster: roster(self.roomId),
      history: history.recent(self.roomId, reads.serverTsMs),
    };
  }

  /** `resync`: the world was replaced, so the browser's view is of another world: send it whole. */
  function pushTo(s: HumanSession, info: TickInfo, resync: boolean): void {
    const ws = s.ws!;
    if (ws.bufferedAmount > BACKPRESSURE_BYTES) {
      const since = behindSince.get(s);
      if (since === undefined) behindSince.set(s, now());
      else if (now() - since >= SLOW_CLIENT_MS) {
        behindSince.delete(s);
        warn(`openclawworld web: closing ${s.actor.entityId}: ${SLOW_CLIENT_CLOSE.reason}`);
        ws.close(SLOW_CLIENT_CLOSE.code, SLOW_CLIENT_CLOSE.reason);
      }
      return;
    }
    behindSince.delete(s);
    const self = reads.getEntity(s.actor.entityId);
    if (!self) {
      if (resync) ws.close(WORLD_RESTORED_CLOSE.code, WORLD_RESTORED_CLOSE.reason);
      return;
    }
    if (resync || self.roomId !== s.roomId) {
      const firstSeqHere = info.events.find((e) => e.roomId === self.roomId)?.seq;
      const afterSeq = firstSeqHere !== undefined ? firstSeqHere - 1 : reads.latestSeq(self.roomId);
      send(s, {
        type: "room",
        room: roomInfo(self.roomId),
        ...enterRoom(s, self, afterSeq),
        tick: info.tick,
      });
    } else {
      const frame = fragments.frameFor(info.tick, s.sent, visibleActors(s, self));
      if (frame) send(s, frame);
    }
    const page = reads.eventsFor(s.actor.entityId, self.roomId, s.lastSeq, EVENTS_PER_PUSH);
    if (page.events.length) send(s, { type: "events", events: page.events.map((e) => wireEvent(reads, e)) });
    s.lastSeq = page.nextSeq;
  }

  function pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void {
    if (reads.worldEpoch !== historyEpoch) {
      historyEpoch = reads.worldEpoch;
      history = new ChatHistory();
    }
    for (const e of info.events) if (e.type === "chat.message") history.add(e.roomId, wireEvent(reads, e));
    if (info.tick % patchEvery !== 0) return;
    fragments.begin();
    try {
      pushPatch(sessions, info);
    } finally {
      fragments.end();
    }
  }

  function pushPatch(sessions: Iterable<HumanSession>, info: TickInfo): void {
    const radarDue =
      Math.floor(info.tick / patchEvery) %
        Math.max(1, Math.round(radarEveryTicks(reads.definition.tickRate) / patchEvery)) ===
      0;
    if (radarDue) fragments.sweep((id) => reads.getEntity(id) !== undefined);
    const dotsByRoom = new Map<string, ReturnType<typeof roomDots>>();
    for (const s of sessions) {
      if (!s.ws || !s.roomId) continue;
      try {
        pushTo(s, info, viewEpoch.get(s) !== reads.worldEpoch);
        if (radarDue && s.roomId) {
          const dots = dotsByRoom.get(s.roomId) ?? roomDots(reads, s.roomId);
          dotsByRoom.set(s.roomId, dots);
          const mine = radarOf(s).next(dots, s.sent);
          if (mine) send(s, { type: "radar", dots: mine });
        }
      } catch (error) {
        warn(`openclawworld web: update for ${s.actor.entityId} failed: ${(error as Error).message}`);
      }
    }
  }

  return { roomInfo, enterRoom, pushTick, roster };
}
