// One room's event log: seq from 1, bounded retention, and who was in the room when (so a recipient
// sees room-audience events from its own join until it left).
// A page for one recipient reads only the events that could be theirs: the room-audience events and
// those addressed to them, through a seq index kept beside the log. Scanning the whole log per read
// cost every reader every event, which in a crowd (hundreds of proximity events a tick, each for one
// actor, read by every browser every patch and every polling agent) grew with readers × events.
import type { Audience, EventsPage, EventType, WorldEvent } from "./types.ts";

/** Membership intervals, flat: [fromSeq, toSeq, fromSeq, toSeq, ...]; toSeq = -1 while present. */
export type Intervals = number[];

/** Ascending seqs with a moving head, so dropping expired ones from the front is O(1) amortised. */
class SeqList {
  seqs: number[] = [];
  head = 0;

  get size(): number {
    return this.seqs.length - this.head;
  }

  push(seq: number): void {
    this.seqs.push(seq);
  }

  /** Drops seqs below `first`. */
  dropBelow(first: number): void {
    const { seqs } = this;
    while (this.head < seqs.length && seqs[this.head]! < first) this.head++;
    if (this.head >= 1024 && this.head * 2 >= seqs.length) {
      this.seqs = seqs.slice(this.head);
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

export class RoomEventLog {
  readonly roomId: string;
  private readonly retention: number;
  private events: WorldEvent[] = [];
  private start = 0;
  lastSeq = 0;
  readonly membership = new Map<string, Intervals>();
  /** Seqs of the retained room-audience events, and per recipient of those addressed to them. */
  private roomSeqs = new SeqList();
  private addressed = new Map<string, SeqList>();

  constructor(roomId: string, retention: number) {
    this.roomId = roomId;
    this.retention = retention;
  }

  get retainedCount(): number {
    return this.events.length - this.start;
  }

  /** Seq of the oldest retained event (lastSeq + 1 when none is retained). */
  get firstRetainedSeq(): number {
    return this.lastSeq - this.retainedCount + 1;
  }

  append(
    type: EventType,
    payload: Record<string, unknown>,
    audience: Audience,
    tick: number,
    tsMs: number,
    actorId?: string,
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
    if (actorId !== undefined) event.actorId = actorId;
    this.events.push(event);
    this.index(event);
    if (this.events.length - this.start > this.retention) {
      this.start++;
      if (this.start >= 1024 && this.start * 2 >= this.events.length) {
        this.events = this.events.slice(this.start);
        this.start = 0;
      }
    }
    return event;
  }

  enter(entityId: string, seq: number): void {
    let list = this.membership.get(entityId);
    if (!list) {
      list = [];
      this.membership.set(entityId, list);
    }
    list.push(seq, -1);
  }

  /** Where the entity's current stay began, while it is here. */
  enteredAtSeq(entityId: string): number | undefined {
    const list = this.membership.get(entityId);
    return list && list[list.length - 1] === -1 ? list[list.length - 2] : undefined;
  }

  exit(entityId: string, seq: number): void {
    const list = this.membership.get(entityId);
    if (list && list.length >= 2 && list[list.length - 1] === -1) list[list.length - 1] = seq;
    this.pruneMember(entityId);
  }

  /** Forgets closed intervals that end before the retained window. */
  pruneMember(entityId: string): void {
    const list = this.membership.get(entityId);
    if (!list) return;
    const first = this.firstRetainedSeq;
    let drop = 0;
    while (drop < list.length && list[drop + 1] !== -1 && list[drop + 1]! < first) drop += 2;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.membership.delete(entityId);
  }

  pruneAll(): void {
    for (const id of [...this.membership.keys()]) this.pruneMember(id);
    const first = this.firstRetainedSeq;
    this.roomSeqs.dropBelow(first);
    for (const [id, list] of this.addressed) {
      list.dropBelow(first);
      if (list.size === 0) this.addressed.delete(id);
    }
  }

  /** Adds a new event to the index; each list it touches drops its expired head as it goes, so a
   * list holds at most the retained events (lists nobody adds to are swept by pruneAll). */
  private index(event: WorldEvent): void {
    const audience = event.audience;
    const first = this.firstRetainedSeq;
    if (audience.kind !== "entities") {
      this.roomSeqs.push(event.seq);
      this.roomSeqs.dropBelow(first);
      return;
    }
    for (const id of audience.ids) {
      let list = this.addressed.get(id);
      if (!list) {
        list = new SeqList();
        this.addressed.set(id, list);
      }
      // An id named twice in one audience is indexed once.
      if (list.seqs[list.seqs.length - 1] !== event.seq) list.push(event.seq);
      list.dropBelow(first);
    }
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

  eventsFor(recipientId: string, afterSeq: number, limit: number): EventsPage {
    const after = Math.max(0, Math.floor(afterSeq));
    const first = this.firstRetainedSeq;
    const page: EventsPage = { events: [], nextSeq: Math.min(after, this.lastSeq) };
    let from = after + 1;
    if (from < first) {
      page.expired = { oldestRetainedSeq: first, droppedCount: first - from };
      from = first;
      page.nextSeq = first - 1;
    }
    if (limit <= 0 || from > this.lastSeq) return page;
    // Merge the two ascending candidate lists; a room event still needs the membership check.
    const room = this.roomSeqs;
    const mine = this.addressed.get(recipientId);
    let r = room.lowerBound(from);
    let m = mine ? mine.lowerBound(from) : 0;
    const mEnd = mine ? mine.seqs.length : 0;
    while (r < room.seqs.length || m < mEnd) {
      const rs = r < room.seqs.length ? room.seqs[r]! : Number.POSITIVE_INFINITY;
      const ms = m < mEnd ? mine!.seqs[m]! : Number.POSITIVE_INFINITY;
      const seq = Math.min(rs, ms);
      if (rs === seq) r++;
      if (ms === seq) m++;
      const event = this.events[this.start + (seq - first)]!;
      if (rs === seq && !this.canSee(recipientId, event)) continue;
      page.events.push(event);
      if (page.events.length >= limit) {
        page.nextSeq = seq;
        return page;
      }
    }
    page.nextSeq = this.lastSeq;
    return page;
  }

  retained(): WorldEvent[] {
    return this.events.slice(this.start);
  }

  restore(lastSeq: number, events: WorldEvent[], membership: [string, Intervals][]): void {
    this.events = events;
    this.start = 0;
    this.lastSeq = lastSeq;
    this.membership.clear();
    for (const [id, list] of membership) this.membership.set(id, list);
    this.roomSeqs = new SeqList();
    this.addressed = new Map();
    for (const event of events) this.index(event);
  }
}
