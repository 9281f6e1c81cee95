// What each human's browser is shown, read through the contract's read interface: the room (map,
// objects, roster) on entering it, then per tick an interest-managed delta of the actors near them
// and the events they may perceive. Sends happen at the tick rate; a slow socket skips ticks and
// heals on the next delta, because `sent` records what the browser has.
import path from "node:path";
import type { TickInfo, WorldReads } from "../../aic/reads.ts";
import type { EntityView } from "../../world/types.ts";
import { diffEntities, isEmptyDelta, toWire } from "./delta.ts";
import type {
  ServerMessage,
  WireEntity,
  WireEvent,
  WireObject,
  WireRoom,
  WireRosterEntry,
} from "./protocol.ts";
import type { HumanSession } from "./session.ts";

const BACKPRESSURE_BYTES = 1 << 20;
const EVENTS_PER_PUSH = 200;

export interface RoomView {
  entities: WireEntity[];
  objects: WireObject[];
  roster: WireRosterEntry[];
}

export interface ViewSync {
  roomInfo(roomId: string): WireRoom;
  /** Start showing a room: resets what the session has been sent and returns the full view. */
  enterRoom(s: HumanSession, self: EntityView, afterSeq: number): RoomView;
  /** After a tick: every connected session gets its room change, delta and events. */
  pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void;
}

export function createViewSync(
  reads: WorldReads,
  send: (s: HumanSession, message: ServerMessage) => void,
  warn: (message: string) => void,
): ViewSync {
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

  /** The actors this session should see now (interest with hysteresis), as wire entities. */
  function visibleActors(s: HumanSession, self: EntityView): WireEntity[] {
    const hits = reads
      .queryRadius(self.roomId, self.pos, s.interest.exitRadius)
      .filter((h) => h.entity.kind !== "object");
    const ids = s.interest.update(
      hits.map((h) => ({ id: h.entity.id, distance: h.distance })),
      s.actor.entityId,
    );
    return hits.filter((h) => ids.has(h.entity.id)).map((h) => toWire(h.entity));
  }

  function wireEvent(e: {
    type: string;
    seq: number;
    tsMs: number;
    payload: Record<string, unknown>;
  }): WireEvent {
    if (e.type !== "chat.message") return { type: e.type, seq: e.seq, tsMs: e.tsMs, payload: e.payload };
    const from = reads.getEntity(String(e.payload.fromEntityId));
    return {
      type: e.type,
      seq: e.seq,
      tsMs: e.tsMs,
      payload: { ...e.payload, fromName: from?.name ?? String(e.payload.fromEntityId) },
    };
  }

  /** Everyone in the room by name (no positions): the presence list; positions stream by interest. */
  function roster(roomId: string): WireRosterEntry[] {
    return reads.actorsInRoom(roomId).map((a) => ({
      id: a.id,
      name: a.name,
      kind: a.kind === "agent" ? ("agent" as const) : ("human" as const),
    }));
  }

  function enterRoom(s: HumanSession, self: EntityView, afterSeq: number): RoomView {
    s.roomId = self.roomId;
    s.lastSeq = afterSeq;
    s.sent.clear();
    s.interest.clear();
    const entities = visibleActors(s, self);
    for (const e of entities) s.sent.set(e.id, e);
    return { entities, objects: roomObjects(self.roomId), roster: roster(self.roomId) };
  }

  function pushTo(s: HumanSession, info: TickInfo): void {
    const ws = s.ws!;
    if (ws.bufferedAmount > BACKPRESSURE_BYTES) return;
    const self = reads.getEntity(s.actor.entityId);
    if (!self) return;
    if (self.roomId !== s.roomId) {
      const firstSeqHere = info.events.find((e) => e.roomId === self.roomId)?.seq;
      const afterSeq = firstSeqHere !== undefined ? firstSeqHere - 1 : reads.latestSeq(self.roomId);
      send(s, {
        type: "room",
        room: roomInfo(self.roomId),
        ...enterRoom(s, self, afterSeq),
        tick: info.tick,
      });
    } else {
      const delta = diffEntities(s.sent, visibleActors(s, self));
      if (!isEmptyDelta(delta))
        send(s, { type: "delta", tick: info.tick, serverTsMs: info.serverTsMs, ...delta });
    }
    const page = reads.eventsFor(s.actor.entityId, self.roomId, s.lastSeq, EVENTS_PER_PUSH);
    if (page.events.length) send(s, { type: "events", events: page.events.map(wireEvent) });
    s.lastSeq = page.nextSeq;
  }

  function pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void {
    for (const s of sessions) {
      if (!s.ws || !s.roomId) continue;
      try {
        pushTo(s, info);
      } catch (error) {
        warn(`openclawworld web: update for ${s.actor.entityId} failed: ${(error as Error).message}`);
      }
    }
  }

  return { roomInfo, enterRoom, pushTick };
}
