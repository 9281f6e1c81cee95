// One room's event log: seq from 1, bounded retention, and who was in the room when (so a recipient
// sees room-audience events from its own join until it left).
import type { Audience, EventsPage, EventType, WorldEvent } from "./types.ts";

/** Membership intervals, flat: [fromSeq, toSeq, fromSeq, toSeq, ...]; toSeq = -1 while present. */
export type Intervals = number[];

export class RoomEventLog {
  readonly roomId: string;
  private readonly retention: number;
  private events: WorldEvent[] = [];
  private start = 0;
  lastSeq = 0;
  readonly membership = new Map<string, Intervals>();

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
    if (limit <= 0) return page;
    for (let seq = from; seq <= this.lastSeq; seq++) {
      const event = this.events[this.start + (seq - first)]!;
      page.nextSeq = seq;
      if (!this.canSee(recipientId, event)) continue;
      page.events.push(event);
      if (page.events.length >= limit) break;
    }
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
  }
}
