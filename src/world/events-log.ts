// One room's event log: seq from 1, bounded retention, and who was in the room when (so a recipient
// sees room-audience events from its own join until it left).
//
// Retention is per reader. Every reader (each present entity, for the events addressed to it; the
// room, for room-audience events such as presence, global chat and object state) keeps its newest
// `perRecipient` events. Older ones share a room pool of `room` events and leave it oldest first. A
// cursor is expired only when an event its reader could have seen after it was dropped: in a crowd,
// hundreds of proximity events a tick would otherwise push every reader's own few events out of one
// shared window within seconds, while a quiet room still keeps hours for a slow poller. Each reader
// has a floor, the highest seq it may have lost; a page from below it says so (expired). A page
// reads only its reader's candidates (the room's list and its own), never the whole log.
import { compareIds } from "./actor.ts";
import type { Audience, EventsPage, EventType, WorldEvent } from "./types.ts";

/** Membership intervals, flat: [fromSeq, toSeq, fromSeq, toSeq, ...]; toSeq = -1 while present. */
export type Intervals = number[];

/** How many events a room keeps: each reader its newest `perRecipient`, the rest a pool of `room`. */
export interface EventRetention {
  room: number;
  perRecipient: number;
}

/** How many departed entities' floors a room remembers; forgetting one raises `forgotten`. */
export const DEPARTED_FLOORS = 1024;

/** What a room remembers of dropped events, beside the retained ones (part of a snapshot). */
export interface DropFloors {
  /** Highest dropped room-audience seq. */
  roomDropped: number;
  /** Highest floor of a forgotten departed entity: the floor of anyone the room does not know. */
  forgotten: number;
  /** Present entities whose floor is above 0, by id. */
  present: [string, number][];
  /** Departed entities' floors, oldest departure first. */
  departed: [string, number][];
}

/** One reader's events in seq order with a moving head, so dropping the oldest is O(1) amortised. */
class EventList {
  seqs: number[] = [];
  events: WorldEvent[] = [];
  head = 0;
  /** Index of the first of the newest events the list keeps itself; those before it are pooled. */
  split = 0;
  /** Highest seq dropped from this list. */
  floor: number;
  /** False once its reader left: its pooled entries are stale. */
  alive = true;

  constructor(floor = 0) {
    this.floor = floor;
  }

  get size(): number {
    return this.seqs.length - this.head;
  }

  get pooled(): number {
    return this.split - this.head;
  }

  get firstSeq(): number | undefined {
    return this.head < this.seqs.length ? this.seqs[this.head] : undefined;
  }

  push(event: WorldEvent): void {
    this.seqs.push(event.seq);
    this.events.push(event);
  }

  /** Drops the oldest event (a pooled one). */
  shift(): void {
    this.floor = this.seqs[this.head]!;
    this.head++;
    if (this.head >= 1024 && this.head * 2 >= this.seqs.length) {
      this.seqs = this.seqs.slice(this.head);
      this.events = this.events.slice(this.head);
      this.split -= this.head;
      this.head = 0;
    }
  }

  /** Index of the first seq >= `seq` (binary search). */
  lowerBound(seq: number): number {
    let lo = this.head;
    let hi = this.seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqs[mid]! < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The room's shared pool: readers' older events in the order they left their reader's newest. */
class Pool {
  private lists: EventList[] = [];
  private head = 0;
  /** Entries of lists still alive. */
  live = 0;

  add(list: EventList): void {
    this.lists.push(list);
    list.split++;
    this.live++;
  }

  /** Drops the oldest live entry's event from its list. */
  evict(): void {
    while (this.head < this.lists.length) {
      const list = this.lists[this.head++]!;
      if (!list.alive) continue;
      list.shift();
      this.live--;
      break;
    }
    this.compact();
  }

  /** A reader left: its pooled entries stop counting (and are swept once they are many). */
  release(list: EventList): void {
    list.alive = false;
    this.live -= list.pooled;
    this.compact();
  }

  private compact(): void {
    const held = this.lists.length - this.head;
    if (held - this.live > Math.max(1024, this.live)) {
      this.lists = this.lists.slice(this.head).filter((list) => list.alive);
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.lists.length) {
      this.lists = this.lists.slice(this.head);
      this.head = 0;
    }
  }
}

export class RoomEventLog {
  readonly roomId: string;
  private readonly retention: EventRetention;
  lastSeq = 0;
  readonly membership = new Map<string, Intervals>();
  /** The room-audience events, read by everyone present (each through its membership). */
  private room = new EventList();
  /** Present entities' addressed events, by id. */
  private present = new Map<string, EventList>();
  private pool = new Pool();
  private forgotten = 0;
  /** Floors of departed entities, oldest departure first (Map insertion order). */
  private departed = new Map<string, number>();

  constructor(roomId: string, retention: EventRetention) {
    this.roomId = roomId;
    this.retention = retention;
  }

  /** Events held: room-audience ones plus each present entity's (one addressed to two counts twice). */
  get retainedCount(): number {
    let count = this.room.size;
    for (const list of this.present.values()) count += list.size;
    return count;
  }

  /** Seq of the oldest retained room-audience event (lastSeq + 1 when none is retained). */
  private get firstRoomSeq(): number {
    return this.room.firstSeq ?? this.lastSeq + 1;
  }

  append(
    type: EventType,
    payload: Record<string, unknown>,
    audience: Audience,
    tick: number,
    tsMs: number,
    extra?: Pick<WorldEvent, "actorId" | "toRoomId" | "fromRoomId" | "toWorldId">,
  ): WorldEvent {
    const event: WorldEvent = {
      seq: ++this.lastSeq,
      type,
      roomId: this.roomId,
      tsMs,
      tick,
      payload,
      audience,
    };
    if (extra?.actorId !== undefined) event.actorId = extra.actorId;
    if (extra?.toRoomId !== undefined) event.toRoomId = extra.toRoomId;
    if (extra?.fromRoomId !== undefined) event.fromRoomId = extra.fromRoomId;
    if (extra?.toWorldId !== undefined) event.toWorldId = extra.toWorldId;
    this.keep(event, false);
    return event;
  }

  /** Files an event with its readers, pooling and dropping what falls out of their retention. */
  private keep(event: WorldEvent, restoring: boolean): void {
    const audience = event.audience;
    if (audience.kind !== "entities") {
      this.file(this.room, event);
      return;
    }
    for (const id of audience.ids) {
      const list = this.present.get(id);
      if (!list) {
        // Not here to read it: it is lost to them, so a cursor of theirs from before it expires.
        // (A snapshot's floors already count it.)
        if (!restoring) this.raiseDeparted(id, event.seq);
        continue;
      }
      // An id named twice in one audience is filed once. A snapshot may hold an event of an earlier
      // stay (kept for another reader): it was not this stay's.
      if (list.seqs[list.seqs.length - 1] === event.seq) continue;
      if (restoring && event.seq < (this.enteredAtSeq(id) ?? 0)) continue;
      this.file(list, event);
    }
  }

  private file(list: EventList, event: WorldEvent): void {
    list.push(event);
    if (list.seqs.length - list.split > this.retention.perRecipient) this.pool.add(list);
    while (this.pool.live > this.retention.room) this.pool.evict();
  }

  enter(entityId: string, seq: number): void {
    let list = this.membership.get(entityId);
    if (!list) {
      list = [];
      this.membership.set(entityId, list);
    }
    list.push(seq, -1);
    if (this.present.has(entityId)) return;
    // A returning entity keeps the floor of its earlier stays.
    const floor = this.departed.get(entityId) ?? 0;
    this.departed.delete(entityId);
    this.present.set(entityId, new EventList(floor));
  }

  /** Where the entity's current stay began, while it is here. */
  enteredAtSeq(entityId: string): number | undefined {
    const list = this.membership.get(entityId);
    return list && list[list.length - 1] === -1 ? list[list.length - 2] : undefined;
  }

  /** The entity left at `seq`: its addressed events go, and its floor covers everything up to `seq`. */
  exit(entityId: string, seq: number): void {
    const list = this.membership.get(entityId);
    if (list && list.length >= 2 && list[list.length - 1] === -1) list[list.length - 1] = seq;
    this.pruneMember(entityId);
    const events = this.present.get(entityId);
    if (!events) return;
    this.present.delete(entityId);
    this.pool.release(events);
    this.raiseDeparted(entityId, Math.max(events.floor, seq, events.seqs.at(-1) ?? 0));
  }

  /** Raises a departed entity's floor (making it the newest departure), forgetting the oldest
   * beyond DEPARTED_FLOORS. */
  private raiseDeparted(entityId: string, seq: number): void {
    const floor = Math.max(this.departed.get(entityId) ?? 0, seq);
    this.departed.delete(entityId);
    this.departed.set(entityId, floor);
    if (this.departed.size > DEPARTED_FLOORS) {
      const [oldest, oldestFloor] = this.departed.entries().next().value!;
      this.departed.delete(oldest);
      this.forgotten = Math.max(this.forgotten, oldestFloor);
    }
  }

  /** Forgets closed intervals that end before the retained room-audience events. */
  pruneMember(entityId: string): void {
    const list = this.membership.get(entityId);
    if (!list) return;
    const first = this.firstRoomSeq;
    let drop = 0;
    while (drop < list.length && list[drop + 1] !== -1 && list[drop + 1]! < first) drop += 2;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.membership.delete(entityId);
  }

  pruneAll(): void {
    for (const id of [...this.membership.keys()]) this.pruneMember(id);
  }

  canSee(recipientId: string, event: WorldEvent): boolean {
    const audience = event.audience;
    if (audience.kind === "entities") return audience.ids.includes(recipientId);
    const list = this.membership.get(recipientId);
    if (!list) return false;
    for (let i = 0; i < list.length; i += 2) {
      const to = list[i + 1]!;
      if (event.seq >= list[i]! && (to === -1 || event.seq <= to)) return true;
    }
    return false;
  }

  /** The highest seq `recipientId` may have lost: a page from below it is expired. */
  floorOf(recipientId: string): number {
    const roomDropped = this.room.floor;
    const mine = this.present.get(recipientId);
    if (!mine) return Math.max(this.forgotten, roomDropped, this.departed.get(recipientId) ?? 0);
    const stayStart = this.enteredAtSeq(recipientId) ?? 0;
    // Dropped room-audience events were this reader's only if they came after its join.
    return Math.max(this.forgotten, mine.floor, stayStart <= roomDropped ? roomDropped : 0);
  }

  eventsFor(recipientId: string, afterSeq: number, limit: number): EventsPage {
    const after = Math.max(0, Math.floor(afterSeq));
    const page: EventsPage = { events: [], nextSeq: Math.min(after, this.lastSeq) };
    const floor = this.floorOf(recipientId);
    let from = after + 1;
    if (after < floor) {
      page.expired = { oldestRetainedSeq: floor + 1, droppedCount: floor - after };
      from = floor + 1;
      page.nextSeq = floor;
    }
    if (limit <= 0 || from > this.lastSeq) return page;
    // Merge the two ascending candidate lists; a room event still needs the membership check.
    const room = this.room;
    const mine = this.present.get(recipientId);
    let r = room.lowerBound(from);
    let m = mine ? mine.lowerBound(from) : 0;
    const mEnd = mine ? mine.seqs.length : 0;
    while (r < room.seqs.length || m < mEnd) {
      const rs = r < room.seqs.length ? room.seqs[r]! : Number.POSITIVE_INFINITY;
      const ms = m < mEnd ? mine!.seqs[m]! : Number.POSITIVE_INFINITY;
      let event: WorldEvent;
      if (rs < ms) {
        event = room.events[r++]!;
        if (!this.canSee(recipientId, event)) continue;
      } else {
        event = mine!.events[m++]!;
      }
      page.events.push(event);
      if (page.events.length >= limit) {
        page.nextSeq = event.seq;
        return page;
      }
    }
    page.nextSeq = this.lastSeq;
    return page;
  }

  /** Every retained event once, in seq order. */
  retained(): WorldEvent[] {
    const all: WorldEvent[] = this.room.events.slice(this.room.head);
    for (const list of this.present.values()) {
      for (let i = list.head; i < list.events.length; i++) all.push(list.events[i]!);
    }
    all.sort((a, b) => a.seq - b.seq);
    // An event addressed to several present entities is in each of their lists.
    return all.filter((event, i) => i === 0 || all[i - 1]!.seq !== event.seq);
  }

  floors(): DropFloors {
    return {
      roomDropped: this.room.floor,
      forgotten: this.forgotten,
      present: [...this.present]
        .filter(([, list]) => list.floor > 0)
        .map(([id, list]): [string, number] => [id, list.floor])
        .sort((a, b) => compareIds(a[0], b[0])),
      departed: [...this.departed],
    };
  }

  /** Rebuilds the log from a snapshot: filing the retained events again in seq order pools them in
   * the order they were pooled. Without `floors` (a snapshot from before per-reader retention) every
   * cursor before its oldest event counts as expired, as it did then. */
  restore(
    lastSeq: number,
    events: WorldEvent[],
    membership: [string, Intervals][],
    floors?: DropFloors,
  ): void {
    this.lastSeq = lastSeq;
    this.membership.clear();
    for (const [id, list] of membership) this.membership.set(id, list);
    this.room = new EventList(floors?.roomDropped ?? 0);
    this.present = new Map();
    this.pool = new Pool();
    this.departed = new Map(floors?.departed ?? []);
    this.forgotten = floors ? floors.forgotten : Math.max(0, (events[0]?.seq ?? lastSeq + 1) - 1);
    const presentFloors = new Map(floors?.present ?? []);
    for (const [id] of membership) {
      if (this.enteredAtSeq(id) !== undefined)
        this.present.set(id, new EventList(presentFloors.get(id) ?? 0));
    }
    for (const event of events) this.keep(event, true);
  }
}
