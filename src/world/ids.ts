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

/** Characters no display name may hold: controls (NUL, BEL, line breaks), line and paragraph
 * separators, and invisible format characters — bidirectional overrides and isolates among them, which
 * make `\u202e1a tnegA` read as "Agent a1". ZWNJ and ZWJ stay: some scripts (Persian) and emoji
 * sequences need them. */
const NAME_FORBIDDEN_CHARS = /[\p{Cc}\p{Zl}\p{Zp}]|(?![\u200c\u200d])\p{Cf}/u;
/** The words the web client puts after an agent's name (" · AI", " (AI)", "(AI agent)") and their
 * kin, set off as a label: a human whose name carries one reads as an AI. */
const AI_WORD = String.raw`(?:ai|a\.i\.|bot|agent|ai\s*agent)`;
const LABEL_SEPARATOR = String.raw`[·•∙⋅・‧|:\-–—/]`;
const AI_LABEL = new RegExp(
  String.raw`[(\[{<]\s*${AI_WORD}\s*[)\]}>]|${LABEL_SEPARATOR}\s*${AI_WORD}\s*$|^\s*${AI_WORD}\s*${LABEL_SEPARATOR}`,
  "iu",
);

/** Why a display name may not join the world, or undefined when it may: no hidden or reordering
 * characters for anyone, and no AI label on a human (compared after NFKC, so full-width letters and
 * look-alike compatibility forms count as the plain ones). */
export function nameProblem(name: string, actorKind: "human" | "agent"): string | undefined {
  if (NAME_FORBIDDEN_CHARS.test(name)) {
    return "a name may not hold control characters, bidirectional controls or other invisible characters";
  }
  if (actorKind === "human" && AI_LABEL.test(name.normalize("NFKC"))) {
    return 'a person\'s name may not carry an AI label such as "· AI", "(AI)" or "[bot]": only agents are shown as AI';
  }
  return undefined;
}
