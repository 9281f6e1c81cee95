// What each human's browser is shown, read through the contract's read interface: the room (map,
// objects, roster) on entering it, then per patch an interest-managed delta of the actors near them
// (at most `web.maxVisible`, the nearest: interest.ts, over the room's crowd made once per patch:
// crowd.ts) and the events they may perceive. Patches go out every `patchEveryTicks` ticks (the patch rate is
// separate from the tick rate: nothing is lost between patches, the delta is against what the
// browser has and events follow the viewer's own seq). Deltas are binary frames (wire-delta.ts)
// assembled from records encoded once per patch per actor and shared by every viewer
// (patch-fragments.ts): no per-viewer JSON. A slow socket (more than BACKPRESSURE_BYTES
// queued) skips patches and heals on the next one, because `sent` records what the browser has; one
// that stays behind for SLOW_CLIENT_MS is closed with a reason, so a stuck client never holds more
// than about BACKPRESSURE_BYTES of the gateway's memory for long.
import type { EntityView, TickInfo, WorldEvent, WorldReads } from "../../aic/reads.ts";
import { CreatureFeed } from "./creature-feed.ts";
import { RoomCrowd } from "./crowd.ts";
import { PatchFragments } from "./patch-fragments.ts";
import { PreparedText } from "./prepared-text.ts";
import type { PresenceState } from "./presence-state.ts";
import type {
  ServerMessage,
  WireEntity,
  WireEvent,
  WireObject,
  WireRoom,
  WireRosterEntry,
} from "./protocol.ts";
import { dotsOf, RadarFeeds, RadarView, radarEveryTicks } from "./radar.ts";
import { chatHistory } from "./recent-chat.ts";
import type { HumanSession } from "./session.ts";
import { toWire, toWireObjects, toWireRoom } from "./wire-entity.ts";
import { wireEvent } from "./wire-events.ts";

const BACKPRESSURE_BYTES = 1 << 20;
const EVENTS_PER_PUSH = 200;
/** The events a browser is sent: those its page shows (web/client/main.ts, onEvents). Proximity
 * changes are an agent's perception (the world records them for agents only) and the page draws none. */
export const BROWSER_EVENT_TYPES: ReadonlySet<string> = new Set([
  "chat.message",
  "presence.join",
  "presence.leave",
  "object.state_changed",
]);
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
  /** Runs a slice of a patch's fan-out later: the first right after the tick's own work (default
   * queueMicrotask: after the tick's answers, before any other I/O), the next ones after the I/O the
   * event loop has waiting (default setImmediate). Tests pass one that runs it at once. */
  defer?: (run: () => void, first: boolean) => void;
  /** How long one slice of the fan-out may run before the event loop gets a turn (ms). */
  sliceMs?: number;
  /** Told when every browser has been served a patch. */
  onPatchDelivered?: (patch: PatchDelivery) => void;
  /** Runs `write`, which sends one browser its part of a patch (up to four messages), so that
   * they leave in one socket write: the web surface corks the socket around it. */
  together?: (s: HumanSession, write: () => void) => void;
}

/** How one patch reached the browsers. */
export interface PatchDelivery {
  /** From the tick that made the patch to the last browser served. */
  deliveryMs: number;
  /** Time spent building and writing it (the slices, without the waits between them). */
  workMs: number;
  browsers: number;
  /** Patches that fell due while this one was going out, and were skipped (the next one heals). */
  skipped: number;
}

/** One slice of the fan-out; then the event loop answers what waits (HTTP agents, inputs). Long
 * enough that a crowd's patch goes out in a few slices even when every loop turn brings hundreds of
 * requests (with 4 ms slices, 1,000 participants' agents starved the fan-out to 0.4 patches/s). */
const SLICE_MS = 10;

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
   * room-wide radar, which shows those beyond its interest set). */
  pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void;
  /** Everyone in a room by name, with presence (the roster a browser shows). */
  roster(roomId: string): WireRosterEntry[];
}

/** One room's actors for one patch, and their wire forms as viewers first need them. */
interface CrowdPatch {
  crowd: RoomCrowd;
  wires: (WireEntity | undefined)[];
}

export function createViewSync(
  reads: WorldReads,
  /** A JSON message, one serialized once for many sockets, or a binary delta frame. */
  send: (s: HumanSession, message: ServerMessage | PreparedText | Uint8Array) => void,
  warn: (message: string) => void,
  presence: PresenceState,
  options: ViewSyncOptions = {},
): ViewSync {
  const patchEvery = Math.max(1, Math.floor(options.patchEveryTicks ?? 1));
  const now = options.now ?? (() => performance.now());
  /** The world (`reads.worldEpoch`) each browser's view was built from: when the operator restores
   * another, every browser gets the whole view again (a "room" message) instead of a delta against a
   * world that no longer exists (its chat history is the restored world's own). */
  let feedsEpoch = reads.worldEpoch;
  const viewEpoch = new WeakMap<HumanSession, number>();
  /** The progress each browser was last sent (its records, as JSON): sent again only when it changed. */
  const progressSent = new WeakMap<HumanSession, string>();
  const NO_PROGRESS = "[]";
  /** Since when each session's socket has been over the backpressure limit. */
  const behindSince = new WeakMap<HumanSession, number>();
  /** Each actor's wire form and delta records, made once per patch and shared by every viewer. */
  const fragments = new PatchFragments();
  const decorated = (entity: EntityView, h: number) => presence.decorate(toWire(entity, h));
  const wireOf = (entity: EntityView): WireEntity => fragments.wire(entity, decorated);
  const radars = new WeakMap<HumanSession, RadarView>();
  const feeds = new RadarFeeds();
  const radarPeriod = Math.max(1, Math.round(radarEveryTicks(reads.definition.tickRate) / patchEvery));
  let radarSlots = 0;
  const radarOf = (s: HumanSession) => {
    let view = radars.get(s);
    if (!view) {
      view = new RadarView(radarSlots++ % radarPeriod);
      radars.set(s, view);
    }
    return view;
  };
  /** Each room's crowd, made once per patch (outside a patch, a room entry makes its own). */
  const crowds = new Map<string, CrowdPatch>();
  let inPatch = false;
  const handleOf = (id: string) => fragments.handle(id);
  const makeCrowd = (roomId: string): CrowdPatch => {
    const crowd = new RoomCrowd(
      reads.actorsInRoom(roomId),
      handleOf,
      reads.definition.rooms[roomId]?.tileSize ?? 32,
    );
    return { crowd, wires: new Array(crowd.size) };
  };
  const crowdOf = (roomId: string): CrowdPatch => {
    if (!inPatch) return makeCrowd(roomId);
    let c = crowds.get(roomId);
    if (!c) {
      c = makeCrowd(roomId);
      crowds.set(roomId, c);
    }
    return c;
  };
  const creatures = new CreatureFeed(reads);
  /** Scratch for a viewer's selected crowd indices (one viewer at a time). */
  let picked = new Int32Array(64);

  function roomInfo(roomId: string): WireRoom {
    return toWireRoom(reads.definition, roomId);
  }

  function roomObjects(roomId: string): WireObject[] {
    return toWireObjects(reads, roomId);
  }

  /** The actors this session should see now (its interest set: interest.ts), as wire entities. */
  function visibleActors(s: HumanSession, self: EntityView): WireEntity[] {
    const { crowd, wires } = crowdOf(self.roomId);
    if (picked.length < s.interest.maxVisible) picked = new Int32Array(s.interest.maxVisible);
    const me = crowd.indexOf(self.id);
    const count = s.interest.select(crowd, me, self.pos.x, self.pos.y, picked);
    const visible: WireEntity[] = me < 0 ? [wireOf(self)] : [];
    for (let k = 0; k < count; k++) {
      const i = picked[k]!;
      let wire = wires[i];
      if (!wire) {
        wire = wireOf(crowd.views[i]!);
        wires[i] = wire;
      }
      visible.push(wire);
    }
    return visible;
  }

  /** Everyone in the room by name (no positions): the presence list; positions stream by interest. */
  function roster(roomId: string): WireRosterEntry[] {
    return reads.actorsInRoom(roomId).map((a) =>
      presence.decorateRoster({
        id: a.id,
        name: a.name,
        kind: a.kind === "agent" ? ("agent" as const) : ("human" as const),
        ...(a.away ? { away: true } : {}),
      }),
    );
  }

  function enterRoom(s: HumanSession, self: EntityView, afterSeq: number): RoomView {
    viewEpoch.set(s, reads.worldEpoch);
    // A page that enters a room is sent its progress again, when there is any.
    progressSent.set(s, NO_PROGRESS);
    s.roomId = self.roomId;
    s.lastSeq = afterSeq;
    s.interest.clear();
    radarOf(s).reset();
    const entities = visibleActors(s, self);
    s.sent.reset([...entities]);
    creatures.entered(s, self.roomId);
    return {
      entities,
      objects: roomObjects(self.roomId),
      roster: roster(self.roomId),
      history: chatHistory(reads, self.id, self.roomId),
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
    // Still in the room it shows (the usual case): its view is in the room's crowd for this patch.
    const shown = !resync && s.roomId ? crowdOf(s.roomId).crowd : undefined;
    const at = shown ? shown.indexOf(s.actor.entityId) : -1;
    const self = shown && at >= 0 ? shown.views[at]! : reads.getEntity(s.actor.entityId);
    if (!self) {
      if (resync) ws.close(WORLD_RESTORED_CLOSE.code, WORLD_RESTORED_CLOSE.reason);
      return;
    }
    if (resync || self.roomId !== s.roomId) {
      // Events from its arrival on (its own join first), whenever in the patches it arrived.
      const arrived = reads.enteredAtSeq(self.id, self.roomId);
      const afterSeq = arrived !== undefined ? arrived - 1 : reads.latestSeq(self.roomId);
      send(s, {
        type: "room",
        room: roomInfo(self.roomId),
        ...enterRoom(s, self, afterSeq),
        tick: info.tick,
      });
    } else {
      const frame = fragments.frameFor(info.tick, s.sent, visibleActors(s, self));
      if (frame) send(s, frame);
      const moved = creatures.next(s, self.roomId);
      if (moved) send(s, moved);
    }
    // Before the events: a tour's line to this person finds the progress it speaks of on the page.
    sendProgress(s);
    const page = reads.eventsFor(s.actor.entityId, self.roomId, s.lastSeq, EVENTS_PER_PUSH);
    const forBrowser = page.events.filter((e) => BROWSER_EVENT_TYPES.has(e.type));
    if (forBrowser.length) send(s, eventsMessage(self.roomId, forBrowser));
    s.lastSeq = page.nextSeq;
  }

  /** What objects keep about this person (a tour's progress), when it changed: the page's panel. */
  function sendProgress(s: HumanSession): void {
    const items = reads.recordsOf(s.actor.entityId);
    const key = JSON.stringify(items);
    if (progressSent.get(s) === key) return;
    progressSent.set(s, key);
    send(s, { type: "progress", items });
  }

  // The fan-out of a patch runs after the tick, in slices of about SLICE_MS: the first right after the
  // tick's answers, the rest with the event loop's I/O between them, so the tick stays short and
  // agents' answers do not wait behind a thousand socket writes. The world does not change within a slice (ticks run between slices, and the patch keeps
  // the crowd it read). A patch that falls due while the previous one is still going out is skipped:
  // the patch rate adapts to what the gateway can deliver, and nothing is lost by it, because a delta
  // is against what the browser has (`sent`) and events follow its own seq. Each round starts at a
  // different browser, so the same ones are not always served last.
  const defer =
    options.defer ??
    ((run: () => void, first: boolean) => (first ? queueMicrotask(run) : void setImmediate(run)));
  const sliceMs = options.sliceMs ?? SLICE_MS;
  let round:
    | {
        info: TickInfo;
        queue: HumanSession[];
        next: number;
        startedAt: number;
        workMs: number;
        skipped: number;
        rooms: Set<string>;
      }
    | undefined;
  let rotation = 0;

  function pushTick(sessions: Iterable<HumanSession>, info: TickInfo): void {
    if (reads.worldEpoch !== feedsEpoch) {
      feedsEpoch = reads.worldEpoch;
      feeds.clear();
    }
    if (info.tick % patchEvery !== 0) return;
    if (round) {
      round.skipped += 1;
      return;
    }
    const all = [...sessions];
    rotation = all.length ? (rotation + Math.max(1, Math.round(all.length * 0.618))) % all.length : 0;
    const queue = all.slice(rotation).concat(all.slice(0, rotation));
    fragments.begin();
    creatures.begin();
    inPatch = true;
    const patchIndex = Math.floor(info.tick / patchEvery);
    if (patchIndex % radarPeriod === 0) fragments.sweep((id) => reads.getEntity(id) !== undefined);
    round = { info, queue, next: 0, startedAt: now(), workMs: 0, skipped: 0, rooms: new Set() };
    defer(runSlice, true);
  }

  /** The events messages of the patch going out, by room and the seqs they carry: browsers in one
   * room mostly get the same events (a global chat reaches all), so each distinct list is built and
   * serialized once per patch, not once per browser. */
  const eventMessages = new Map<string, PreparedText>();
  function eventsMessage(roomId: string, events: readonly WorldEvent[]): PreparedText {
    const key = `${roomId}:${events.map((e) => e.seq).join(",")}`;
    let message = eventMessages.get(key);
    if (!message) {
      message = new PreparedText({ type: "events", events: events.map((e) => wireEvent(reads, e)) });
      if (inPatch) eventMessages.set(key, message);
    }
    return message;
  }

  function endPatch(): void {
    inPatch = false;
    eventMessages.clear();
    crowds.clear();
    fragments.end();
    creatures.end();
  }

  function runSlice(): void {
    const r = round;
    if (!r) return;
    const started = now();
    const patchIndex = Math.floor(r.info.tick / patchEvery);
    const period = Math.floor(patchIndex / radarPeriod);
    const slot = patchIndex % radarPeriod;
    while (r.next < r.queue.length) {
      const s = r.queue[r.next++]!;
      pushOne(s, r.info, slot, period, r.rooms);
      if (now() - started >= sliceMs) break;
    }
    r.workMs += now() - started;
    if (r.next < r.queue.length) {
      defer(runSlice, false);
      return;
    }
    // The round ends whatever happens below: a slice runs outside the tick (a microtask or
    // setImmediate), where a throw would take the gateway down, and a round left open would skip
    // every later patch.
    round = undefined;
    try {
      if (slot === 0) feeds.retain(r.rooms);
      endPatch();
      options.onPatchDelivered?.({
        deliveryMs: now() - r.startedAt,
        workMs: r.workMs,
        browsers: r.queue.length,
        skipped: r.skipped,
      });
    } catch (error) {
      warn(`openclawworld web: finishing a patch failed: ${(error as Error).message}`);
    }
  }

  function pushOne(s: HumanSession, info: TickInfo, slot: number, period: number, rooms: Set<string>): void {
    if (!s.ws || !s.roomId) return;
    if (options.together) options.together(s, () => pushParts(s, info, slot, period, rooms));
    else pushParts(s, info, slot, period, rooms);
  }

  function pushParts(
    s: HumanSession,
    info: TickInfo,
    slot: number,
    period: number,
    rooms: Set<string>,
  ): void {
    try {
      pushTo(s, info, viewEpoch.get(s) !== reads.worldEpoch);
      if (!s.roomId) return;
      rooms.add(s.roomId);
      const radar = radarOf(s);
      if (radar.slot !== slot) return;
      const roomId = s.roomId;
      const feed = feeds.feed(roomId, period, () => dotsOf(crowdOf(roomId).crowd.views));
      const message = radar.next(feed);
      if (message) send(s, message);
    } catch (error) {
      warn(`openclawworld web: update for ${s.actor.entityId} failed: ${(error as Error).message}`);
    }
  }

  return { roomInfo, enterRoom, pushTick, roster };
}
