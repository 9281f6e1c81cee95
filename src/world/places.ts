// Places: which named region a tile is in, and who hears whom. Pure and dependency-free, so the web
// client imports the same rules the world applies (it draws who hears you with them, and names the
// place you walked into), from the same map file the server loaded.

/** A named, tile-aligned rectangle of a room (RegionDefinition's geometry). */
export interface PlaceRect {
  id: string;
  tile: { tx: number; ty: number };
  widthTiles: number;
  heightTiles: number;
}

export function covers(place: PlaceRect, tx: number, ty: number): boolean {
  return (
    tx >= place.tile.tx &&
    ty >= place.tile.ty &&
    tx < place.tile.tx + place.widthTiles &&
    ty < place.tile.ty + place.heightTiles
  );
}

/** Most specific first: the smaller rectangle, ties by id. The world answers `regionsAt` in this
 * order, and "where you are" is the first. */
export function byPlaceOrder(a: PlaceRect, b: PlaceRect): number {
  return (
    a.widthTiles * a.heightTiles - b.widthTiles * b.heightTiles || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The most specific place covering a tile, if any. */
export function placeAt<P extends PlaceRect>(places: readonly P[], tx: number, ty: number): P | undefined {
  let best: P | undefined;
  for (const p of places) if (covers(p, tx, ty) && (!best || byPlaceOrder(p, best) < 0)) best = p;
  return best;
}

/** The private place (a private room, made so by its object: objects/private-room.ts) a tile is in,
 * as its id, or undefined outside every private place. */
export function hearingZoneAt(
  privatePlaces: readonly PlaceRect[],
  tx: number,
  ty: number,
): string | undefined {
  return placeAt(privatePlaces, tx, ty)?.id;
}

/** Whether a listener can hear a speaker at all, radius aside: inside a private room you hear only
 * those inside it, and only they hear you. Both sides' tiles decide, so the rule is symmetric. */
export function withinHearing(
  privatePlaces: readonly PlaceRect[],
  speaker: { tx: number; ty: number },
  listener: { tx: number; ty: number },
): boolean {
  if (privatePlaces.length === 0) return true;
  return (
    hearingZoneAt(privatePlaces, speaker.tx, speaker.ty) ===
    hearingZoneAt(privatePlaces, listener.tx, listener.ty)
  );
}
