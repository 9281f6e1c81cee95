// The field shapes (zod) that more than one action kind's fields are made of. The contract names
// some of them in the generated documents (src/aic/schemas.ts: TileCoord, IdEntity), so every kind
// that uses one shares that one object.
import * as z from "zod";
import { CHAT_MESSAGE_MAX_CHARS, ENTITY_ID_PATTERN, TILE_COORD_MAX } from "../ids.ts";

export const MESSAGE_ID_PATTERN = /^msg_[A-Za-z0-9._-]{8,128}$/;

/** One tile coordinate (a fresh instance each: inlined in documents). */
export const tileCoordinate = () => z.int().min(0).max(TILE_COORD_MAX);
/** A tile of a room. */
export const TileCoordField = z.strictObject({ tx: tileCoordinate(), ty: tileCoordinate() });
/** An entity: a person, an agent or an object. */
export const EntityIdField = z.string().regex(ENTITY_ID_PATTERN);
/** A chat message's id. */
export const MessageIdField = z.string().regex(MESSAGE_ID_PATTERN);
/** A chat message's text. */
export const chatText = () => z.string().min(1).max(CHAT_MESSAGE_MAX_CHARS);
/** An interaction's action name (`read`, `open`, ...). */
export const actionName = () => z.string().min(1).max(64);
