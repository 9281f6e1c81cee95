// The naming and size rules every layer shares: written once here, in the lowest layer, and used by
// the world's own input checks, the AIC schemas, the human WebSocket protocol, the tools and config.

/** The body of every id: rooms, agents, and entity ids after their prefix. */
export const ID_BODY_SOURCE = "[a-zA-Z0-9._-]{1,64}";
export const ROOM_ID_PATTERN = new RegExp(`^${ID_BODY_SOURCE}$`);
export const AGENT_ID_PATTERN = new RegExp(`^${ID_BODY_SOURCE}$`);
export const ENTITY_ID_PATTERN = new RegExp(`^(hum|agt|obj)_${ID_BODY_SOURCE}$`);
/** Entities that act (humans and agents); objects never do. */
export const ACTOR_ID_PATTERN = new RegExp(`^(hum|agt)_${ID_BODY_SOURCE}$`);

/** Who moderates (the operator, through the admin route): never an entity in a room. */
export const OPERATOR_ENTITY_ID = "op_operator";

export const AGENT_ENTITY_PREFIX = "agt_";
export const HUMAN_ENTITY_PREFIX = "hum_";

/** The world entity of an AIC agent. */
export function agentEntityId(agentId: string): string {
  return `${AGENT_ENTITY_PREFIX}${agentId}`;
}

/** The agentId an agent's entity id stands for (the inverse of agentEntityId). */
export function agentIdOfEntity(entityId: string): string {
  return entityId.startsWith(AGENT_ENTITY_PREFIX) ? entityId.slice(AGENT_ENTITY_PREFIX.length) : entityId;
}

/** The longest chat message anyone may send (a world may set a lower `chat_max_length`). */
export const CHAT_MESSAGE_MAX_CHARS = 500;

/** Tile coordinates are integers in [0, TILE_COORD_MAX]. */
export const TILE_COORD_MAX = 100_000;

/** A map region's id (`plaza`, `meeting_room`): short, lowercase, stable; it names the region in
 * world signals. */
export const REGION_ID_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
/** A region's human name (`Town Hall`). */
export const REGION_NAME_MAX_CHARS = 64;
