// Who would hear the viewer, drawn on the map while they type: the range, a ring under each hearer,
// or the private room's walls. Radius and private rooms as the world decides them (places.ts).
import type * as Phaser from "phaser";
import type { WireRoom } from "../../src/http/humans/protocol.ts";
import { hearingZoneAt, withinHearing } from "../../src/world/places.ts";
import type { ActorView } from "./actor-sprites.ts";
import type { MapPlace } from "./room-map.ts";

/** Who would hear the viewer now on a channel (the world's rule: radius and private rooms). */
export interface Hearing {
  channel: "proximity" | "global";
  /** Ids of the others who hear (of those this page shows). */
  ids: string[];
  /** The private room the viewer is in, if any: only those inside hear. */
  zone: MapPlace | undefined;
}

/** Who hears `me` on `channel`, drawn into `g` (cleared by the caller). */
export function drawHearing(
  g: Phaser.GameObjects.Graphics,
  channel: "proximity" | "global",
  me: ActorView,
  actors: Map<string, ActorView>,
  room: WireRoom,
  privatePlaces: MapPlace[],
): Hearing {
  const size = room.tileSize;
  const zoneId = hearingZoneAt(privatePlaces, me.data.tx, me.data.ty);
  const zone = privatePlaces.find((p) => p.id === zoneId);
  const radius = (room.chatRadiusTiles ?? 6) * size;
  const ids: string[] = [];
  for (const [id, a] of actors) {
    if (a === me || !withinHearing(privatePlaces, me.data, a.data)) continue;
    if (channel === "proximity" && Math.hypot(a.data.x - me.data.x, a.data.y - me.data.y) > radius) continue;
    ids.push(id);
    g.lineStyle(2, 0x7dfcff, 0.95).strokeEllipse(a.shown.x, a.shown.y + 8, 30, 12);
  }
  if (zone) {
    g.lineStyle(2, 0x7dfcff, 0.8).strokeRect(
      zone.tile.tx * size,
      zone.tile.ty * size,
      zone.widthTiles * size,
      zone.heightTiles * size,
    );
  } else if (channel === "proximity") {
    g.fillStyle(0x7dfcff, 0.07).fillCircle(me.shown.x, me.shown.y, radius);
    g.lineStyle(2, 0x7dfcff, 0.7).strokeCircle(me.shown.x, me.shown.y, radius);
  }
  return { channel, ids, zone };
}
