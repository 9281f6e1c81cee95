// The human WebSocket protocol: client messages validated strictly with zod, from the same field
// rules as the AIC requests, once: the parsed message goes to AicService.act as it is.
import { z } from "zod";
import { HUMAN_ACTIONS } from "../../aic/endpoints.ts";
import type { ActorRecordView } from "../../aic/reads.ts";
import { FIELDS_OF, humanName, IdTx, tileCoordinate } from "../../aic/schemas.ts";
import { refineText } from "../../aic/text.ts";

/** The browser's transaction id for an action (the agents' txId rule, action-path.ts): a resend with
 * the same id after a lost answer (a dropped socket, a fan-out child restarted) is answered from the
 * world's record instead of applied again. A held direction (`move_intent`) has none: it is a state
 * the next key press replaces, and a resent one would walk a person who already let go. */
const txId = () => IdTx.optional();

/** How many avatar looks the client draws (web/client/textures.ts LOOKS). */
export const AVATAR_LOOKS = 8;

export const ClientMessage = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("join"),
      name: humanName(),
      resumeToken: z
        .string()
        .regex(/^[A-Za-z0-9_-]{16,128}$/)
        .optional(),
      joinCode: z.string().max(64).optional(),
      /** A travel link's secret (`travel`, claims.ts): join as the person who arrived here through a
       * portal from another gateway; `name` is then not used. */
      claim: z
        .string()
        .regex(/^[A-Za-z0-9_-]{16,128}$/)
        .optional(),
      /** The avatar look picked on the join form (index into the client's looks). */
      look: z
        .int()
        .min(0)
        .max(AVATAR_LOOKS - 1)
        .optional(),
    }),
    // The older messages: each an action kind's own fields (its file's `wire`) under another type
    // (connection.ts maps them to their kinds).
    z.strictObject({ type: z.literal("move_intent"), ...FIELDS_OF.moveDir }),
    /** Deprecated, accepted for one version: the PRD's (9.2) click, which the page sent before it
     * sent `act` moveTo like every action. A tab left open across an upgrade still sends it, and
     * resends its unanswered ones after a resume. Mapped to moveTo in connection.ts (`actionOf`). */
    z.strictObject({
      type: z.literal("click_to_move"),
      destTx: tileCoordinate(),
      destTy: tileCoordinate(),
      txId: txId(),
    }),
    z.strictObject({ type: z.literal("chat_send"), ...FIELDS_OF.chat, txId: txId() }),
    z.strictObject({ type: z.literal("interact"), ...FIELDS_OF.interact, txId: txId() }),
    /** Walk to a reachable tile within interact range of an object (the server picks it). */
    z.strictObject({ type: z.literal("approach"), ...FIELDS_OF.approach, txId: txId() }),
    z.strictObject({ type: z.literal("ping"), t: z.number().finite().optional() }),
    /** An action kind people may send (src/world/actions: `humans`), as its file shapes it:
     * `{kind, ...fields}`. */
    z.strictObject({ type: z.literal("act"), action: z.union(HUMAN_ACTIONS), txId: txId() }),
    // The contract's one text rule (well-formed Unicode), as on every AIC request.
  ])
  .superRefine(refineText);
export type ClientMessageT = z.infer<typeof ClientMessage>;

export const MAX_FRAME_BYTES = 4096;

export type ParseResult =
  | { ok: true; message: ClientMessageT }
  | { ok: false; code: "bad_request"; message: string; forType?: ClientMessageT["type"] };

const CLIENT_TYPES: ReadonlySet<string> = new Set(ClientMessage.options.map((o) => o.shape.type.value));

/** The message type a refused frame meant to be, so the client can tell a refused join (a name it
 * may not take) from any other bad frame. */
function intendedType(value: unknown): ClientMessageT["type"] | undefined {
  const type = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
  return typeof type === "string" && CLIENT_TYPES.has(type) ? (type as ClientMessageT["type"]) : undefined;
}

/** Never throws: bad JSON, unknown types and out-of-bounds fields all become a typed error. */
export function parseClientMessage(raw: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, code: "bad_request", message: "message is not valid JSON" };
  }
  const parsed = ClientMessage.safeParse(value);
  if (parsed.success) return { ok: true, message: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "message"}: ${i.message}`)
    .join("; ");
  const forType = intendedType(value);
  return { ok: false, code: "bad_request", message: issues, ...(forType ? { forType } : {}) };
}

/** What the browser is told about an entity; positions rounded to whole world units. */
export interface WireEntity {
  /** The actor's handle: the small integer binary delta frames use for it (wire-delta.ts). */
  h: number;
  id: string;
  kind: "human" | "agent";
  name: string;
  x: number;
  y: number;
  tx: number;
  ty: number;
  facing: string;
  /** Humans: the avatar look they picked (absent: the client derives one from the id). */
  look?: number;
  /** Humans whose connection dropped, during the resume grace period. */
  away?: boolean;
  /** A resident whose agent turn is running (the world's actor state). */
  thinking?: boolean;
  /** A resident that cannot take turns (no model configured): it sleeps (the world's actor state). */
  asleep?: boolean;
  /** A resident whose turns fail: it cannot answer now (the world's actor state). */
  unwell?: boolean;
}

export interface WireObject {
  id: string;
  objectType: string;
  name: string;
  tx: number;
  ty: number;
  state: Record<string, unknown>;
  version: number;
  affords: { action: string; label: string }[];
}

export interface WireRoom {
  roomId: string;
  name: string;
  mapUrl: string;
  widthTiles: number;
  heightTiles: number;
  tileSize: number;
  tickRate: number;
  /** How far nearby chat carries, in tiles (the page draws who hears you). */
  chatRadiusTiles: number;
}

export interface WireEvent {
  type: string;
  seq: number;
  tsMs: number;
  payload: Record<string, unknown>;
}

export interface WireRosterEntry {
  id: string;
  name: string;
  kind: "human" | "agent";
  away?: boolean;
}

/** Text frames (JSON). Actor deltas, sent up to tickRate times a second, are binary frames instead
 * (wire-delta.ts, docs/web-wire.md); a snapshot's entities carry the handles those frames use. */
export type ServerMessage =
  | {
      type: "welcome";
      sessionId: string;
      resumeToken: string;
      entityId: string;
      /** The name the world knows you by (a taken name gets a suffix: "Bob (2)"). */
      name: string;
      resumed: boolean;
      room: WireRoom;
      entities: WireEntity[];
      objects: WireObject[];
      roster: WireRosterEntry[];
      /** Recent room-wide chat, oldest first. */
      history: WireEvent[];
      tick: number;
      serverTsMs: number;
    }
  | {
      type: "room";
      room: WireRoom;
      entities: WireEntity[];
      objects: WireObject[];
      roster: WireRosterEntry[];
      history: WireEvent[];
      tick: number;
    }
  /** Everyone in the room beyond the viewer's interest range: [id, "h" | "a", tx, ty], ~1/s. */
  | { type: "radar"; dots: [string, "h" | "a", number, number][] }
  /** What objects keep about you (a tour's progress, in words), sent when it changes. */
  | { type: "progress"; items: ActorRecordView[] }
  /** A human's connection dropped (away) or came back, during the resume grace period. */
  | { type: "presence"; id: string; away: boolean }
  | { type: "events"; events: WireEvent[] }
  /** The room's creatures, when one moved or changed what it does: they move without events. */
  | { type: "creatures"; objects: WireObject[] }
  /** The answer to an action; `txId` repeats the action's (the client stops resending it). */
  | { type: "result"; for: ClientMessageT["type"]; data: Record<string, unknown>; txId?: string }
  | {
      type: "error";
      code: string;
      message: string;
      retryable: boolean;
      for?: string;
      /** A walk into a closed place: when it opens (the message says it in words). */
      opensAt?: string;
      txId?: string;
    }
  | { type: "pong"; t?: number; serverTsMs: number }
  /** Your character went through a portal to a world another gateway serves: load this page there
   * (its `?claim=` lets you in as the same person, once). */
  | { type: "travel"; url: string };
