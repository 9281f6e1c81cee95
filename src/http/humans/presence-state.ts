// What the web surface knows about humans that the world does not model: whose connection dropped
// (shown as "away" during the resume grace period) and the avatar look each person picked. It
// decorates what browsers are sent; the world's entities stay as they are.
import type { WireEntity, WireRosterEntry } from "./protocol.ts";

export class PresenceState {
  private readonly away = new Set<string>();
  private readonly looks = new Map<string, number>();

  /** Records a change; false when it was already so (nothing to announce). */
  setAway(entityId: string, away: boolean): boolean {
    if (away === this.away.has(entityId)) return false;
    if (away) this.away.add(entityId);
    else this.away.delete(entityId);
    return true;
  }

  isAway(entityId: string): boolean {
    return this.away.has(entityId);
  }

  setLook(entityId: string, look: number | undefined): void {
    if (look === undefined) this.looks.delete(entityId);
    else this.looks.set(entityId, look);
  }

  /** Looks that never change (a resident's configured look); a person's own pick is setLook. */
  constructor(fixedLooks: Readonly<Record<string, number>> = {}) {
    for (const [entityId, look] of Object.entries(fixedLooks)) this.looks.set(entityId, look);
  }

  /** The person left for good. */
  forget(entityId: string): void {
    this.away.delete(entityId);
    this.looks.delete(entityId);
  }

  decorate(e: WireEntity): WireEntity {
    const look = this.looks.get(e.id);
    return { ...e, ...(look !== undefined ? { look } : {}), ...(this.away.has(e.id) ? { away: true } : {}) };
  }

  decorateRoster(r: WireRosterEntry): WireRosterEntry {
    return this.away.has(r.id) ? { ...r, away: true } : r;
  }
}
