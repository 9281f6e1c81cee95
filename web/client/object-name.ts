// An object's name as a person reads it: "cafe game table", not "obj_cafe_game_table" (the map's
// name without its kind's prefix, or its type when the map gave it none).
import type { WireObject } from "../../src/http/humans/protocol.ts";

export const prettyName = (o: Pick<WireObject, "name" | "objectType">) =>
  o.name.replace(/^(sign|board|door|plot)[_ ]/, "").replace(/_/g, " ") || o.objectType.replace(/_/g, " ");
