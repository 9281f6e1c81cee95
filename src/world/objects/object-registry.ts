// The one registry of object types and their affordances. Adding a type = one file + one line here.
import { creature } from "./creature.ts";
import { door } from "./door.ts";
import { gameTable } from "./game-table.ts";
import { gardenPlot } from "./garden-plot.ts";
import { noticeBoard } from "./notice-board.ts";
import type { ObjectTypeHandler } from "./object-type.ts";
import { portal } from "./portal.ts";
import { privateRoom } from "./private-room.ts";
import { seat } from "./seat.ts";
import { sign } from "./sign.ts";
import { tour } from "./tour.ts";

const handlers: readonly ObjectTypeHandler[] = [
  sign,
  portal,
  door,
  noticeBoard,
  seat,
  privateRoom,
  gameTable,
  gardenPlot,
  tour,
  creature,
];

export const objectTypes: ReadonlyMap<string, ObjectTypeHandler> = new Map(
  handlers.map((h) => [h.objectType, h]),
);

export function objectType(name: string): ObjectTypeHandler | undefined {
  return objectTypes.get(name);
}
