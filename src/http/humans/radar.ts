// The room-wide minimap feed: where everyone in the room is, as tile positions only, at a low rate.
// Full detail (smooth positions, facing, names) streams only for the actors in a viewer's interest set
// (interest.ts: near, and at most `web.maxVisible`); this shows the rest, so a player finds people
// beyond it. The feed is the same for everyone in a room: made and serialized once per room per
// period (the client skips the dots of actors it has in detail; a crowded room's feed is remade less
// often, within RADAR_BYTES_PER_SEC), and sent to each viewer only when it changed since that
// viewer's last one. Viewers are spread over the period's patches (each has a
// slot), so a crowded room's feed does not land on every socket in the same tick.
import { PreparedText } from "./prepared-text.ts";

/** One dot: [entityId, "h" | "a" (human, agent), tx, ty]. */
export type RadarDot = [string, "h" | "a", number, number];

/** How often the feed is refreshed: once per simulated second. */
export const radarEveryTicks = (tickRate: number) => Math.max(1, Math.round(tickRate));

export function dotsOf(actors: readonly { id: string; kind: string; tile: { tx: number; ty: number } }[]) {
  return actors.map((a): RadarDot => [a.id, a.kind === "agent" ? "a" : "h", a.tile.tx, a.tile.ty]);
}

/** Radar bytes a browser is sent per second at most, on average: a crowded room's feed is remade
 * less often (a 1,000-actor room's ~29 kB every 4 s), so a browser's bandwidth stays bounded however
 * full the room is, as the visible entity limit bounds its deltas. */
export const RADAR_BYTES_PER_SEC = 8 * 1024;

/** One room's feed as of one period: its message, serialized once; `version` changes with the dots. */
export interface RoomRadar {
  version: number;
  message: PreparedText;
}

/** The feed of every room, remade at most once per period (once per `every` periods for a feed
 * bigger than RADAR_BYTES_PER_SEC) and only re-versioned when it changed. */
export class RadarFeeds {
  private readonly rooms = new Map<
    string,
    { period: number; every: number; key: string; radar: RoomRadar }
  >();
  private versions = 0;

  /** The room's feed for `period` (dots made by `dots` only when the room's feed is due again). */
  feed(roomId: string, period: number, dots: () => RadarDot[]): RoomRadar {
    const known = this.rooms.get(roomId);
    if (known && period >= known.period && period < known.period + known.every) return known.radar;
    const list = dots();
    const key = JSON.stringify(list);
    if (known && known.key === key) {
      known.period = period;
      return known.radar;
    }
    const message = new PreparedText({ type: "radar", dots: list }, `{"type":"radar","dots":${key}}`);
    const radar = { version: ++this.versions, message };
    const every = Math.max(1, Math.ceil(message.bytes.length / RADAR_BYTES_PER_SEC));
    this.rooms.set(roomId, { period, every, key, radar });
    return radar;
  }

  /** Forgets rooms no one is in any more (bounded memory). */
  retain(roomIds: ReadonlySet<string>): void {
    for (const roomId of this.rooms.keys()) if (!roomIds.has(roomId)) this.rooms.delete(roomId);
  }

  clear(): void {
    this.rooms.clear();
  }
}

/** Per viewer: its slot in the period, and the feed version it was last sent. */
export class RadarView {
  readonly slot: number;
  private last = -1;

  constructor(slot = 0) {
    this.slot = slot;
  }

  /** The feed to send now, or undefined when this viewer already has it. */
  next(radar: RoomRadar): PreparedText | undefined {
    if (radar.version === this.last) return undefined;
    this.last = radar.version;
    return radar.message;
  }

  reset(): void {
    this.last = -1;
  }
}
