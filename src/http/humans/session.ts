// A human's session: who they are in the world (the actor the server built for them), the socket
// they are on now (none while dropped), and what their browser has been sent. A session outlives
// its socket for the resume grace period; the resume token is how a new socket claims it.
import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";
import { HUMAN_ENTITY_PREFIX } from "../../aic/reads.ts";
import type { Actor } from "../../aic/service.ts";
import { DEFAULT_MAX_VISIBLE, HYSTERESIS, InterestSet } from "./interest.ts";
import { SentView } from "./patch-fragments.ts";

export interface HumanSession {
  sessionId: string;
  resumeToken: string;
  actor: Actor;
  ws: WebSocket | undefined;
  /** The room the browser is showing; undefined until the first view is sent. */
  roomId: string | undefined;
  /** The last event seq sent in that room. */
  lastSeq: number;
  /** What the browser has of each visible actor: deltas are computed against it. */
  sent: SentView;
  interest: InterestSet;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** The remote address it joined from ("" when restored after a restart): admission.ts's seats. */
  address: string;
  /** When its socket dropped, as an order; undefined while connected (admission.ts reclaims the
   * oldest drops first). */
  droppedOrder: number | undefined;
  /** The avatar look its page picked (absent: the client derives one from the id). */
  look?: number;
}

/** One WebSocket; it gets a session when it joins (or resumes one). */
export interface Connection {
  id: string;
  /** The remote address the socket came from. */
  address: string;
  session: HumanSession | undefined;
  droppedFrames: number;
}

export const randomToken = (bytes: number) => randomBytes(bytes).toString("base64url");

/** A fresh, unguessable human entity id. */
export const randomHumanId = () => `${HUMAN_ENTITY_PREFIX}${randomToken(9).replace(/[^A-Za-z0-9]/g, "x")}`;

export function newSession(
  name: string,
  ws: WebSocket,
  interestRadius: number,
  entityId: string,
  maxVisible: number = DEFAULT_MAX_VISIBLE,
  address = "",
): HumanSession {
  const sessionId = randomToken(12);
  return {
    sessionId,
    resumeToken: randomToken(24),
    actor: {
      entityId,
      kind: "human",
      name,
      rateKey: `human:${sessionId}`,
    },
    ws,
    roomId: undefined,
    lastSeq: 0,
    sent: new SentView(),
    interest: new InterestSet(interestRadius, interestRadius * HYSTERESIS, maxVisible),
    graceTimer: undefined,
    address,
    droppedOrder: undefined,
  };
}

/** A session as kept across a restart: enough to claim the same character again. */
export interface SavedSession {
  resumeToken: string;
  sessionId: string;
  entityId: string;
  name: string;
  /** Kept with the session so the replay and the follow page draw the person as others saw them. */
  look?: number;
}

/** Where a character stood when it left the world (its page gone past the grace period): a resume
 * token keeps working after that, bringing the same character back there. */
export interface DepartedSession extends SavedSession {
  left: { roomId: string; tx: number; ty: number; order: number };
}

/** Departed sessions kept (the oldest are forgotten beyond this): a bound on what a churning
 * address can make the store hold, far above the people a world sees come back. */
export const MAX_DEPARTED = 2000;

/** A durable key-value space (the runtime's store): a write is durable when it returns, or when its
 * promise resolves (a store in another process: the fan-out child's, src/plugin/fanout). */
export interface DurableSessions {
  list(): { key: string; value: unknown }[];
  put(key: string, value: unknown): void | Promise<void>;
  delete(key: string): void;
}

/** A saved session back as a live one, without a socket (the restart dropped it). */
export function restoredSession(
  saved: SavedSession,
  interestRadius: number,
  maxVisible: number = DEFAULT_MAX_VISIBLE,
): HumanSession {
  return {
    sessionId: saved.sessionId,
    resumeToken: saved.resumeToken,
    actor: { entityId: saved.entityId, kind: "human", name: saved.name, rateKey: `human:${saved.sessionId}` },
    ws: undefined,
    roomId: undefined,
    lastSeq: 0,
    sent: new SentView(),
    interest: new InterestSet(interestRadius, interestRadius * HYSTERESIS, maxVisible),
    graceTimer: undefined,
    address: "",
    droppedOrder: undefined,
    ...(saved.look === undefined ? {} : { look: saved.look }),
  };
}

/** Live sessions, by id and by resume token; also kept in `durable` when there is one. */
export class SessionStore {
  private readonly byId = new Map<string, HumanSession>();
  private readonly byResumeToken = new Map<string, HumanSession>();
  private readonly durable: DurableSessions | undefined;
  /** Departed sessions by resume token, oldest first. */
  private readonly departedByToken = new Map<string, DepartedSession>();
  private departures = 0;

  constructor(durable?: DurableSessions) {
    this.durable = durable;
    const stored = (durable?.list() ?? []).flatMap(({ key, value }) => departedRecord(key, value));
    for (const d of stored.sort((a, b) => a.left.order - b.left.order))
      this.departedByToken.set(d.resumeToken, d);
    this.departures = stored.reduce((most, d) => Math.max(most, d.left.order), 0);
  }

  /** Resolves when the session is durable: its resume token may be handed out from then on (a token
   * given before would not survive a restart). Rejects when the store could not keep it. */
  async add(session: HumanSession): Promise<void> {
    this.restore(session);
    await this.durable?.put(session.resumeToken, record(session));
  }

  /** The page picked another look: kept with the session (a failed write keeps the old one: a look
   * is no acknowledged action). */
  setLook(session: HumanSession, look: number): void {
    if (session.look === look) return;
    session.look = look;
    if (!this.byId.has(session.sessionId)) return;
    void Promise.resolve(this.durable?.put(session.resumeToken, record(session))).catch(() => undefined);
  }

  /** A session whose record is already durable (saved before a restart) is live again. */
  restore(session: HumanSession): void {
    this.byId.set(session.sessionId, session);
    this.byResumeToken.set(session.resumeToken, session);
  }

  remove(session: HumanSession): void {
    this.byId.delete(session.sessionId);
    this.byResumeToken.delete(session.resumeToken);
    this.durable?.delete(session.resumeToken);
  }

  /** Sessions saved before a restart (malformed records are dropped from the durable space;
   * departed ones are kept apart, see `departed`). */
  saved(): SavedSession[] {
    return (this.durable?.list() ?? []).flatMap(({ key, value }) => {
      if (this.departedByToken.has(key)) return [];
      const v = (value ?? {}) as Partial<SavedSession>;
      if (typeof v.sessionId === "string" && typeof v.entityId === "string" && typeof v.name === "string")
        return [
          { resumeToken: key, sessionId: v.sessionId, entityId: v.entityId, name: v.name, ...lookOf(v) },
        ];
      this.durable?.delete(key);
      return [];
    });
  }

  /** The session's character left the world (its grace period ran out): its token is kept, with
   * where it stood, so the page that holds it brings the same character back there. */
  depart(session: HumanSession, where: { roomId: string; tx: number; ty: number }): void {
    this.remove(session);
    const left = { ...where, order: ++this.departures };
    const departed: DepartedSession = { resumeToken: session.resumeToken, ...record(session), left };
    this.departedByToken.set(departed.resumeToken, departed);
    void Promise.resolve(this.durable?.put(departed.resumeToken, { ...record(session), left })).catch(
      () => undefined, // kept in memory still: only a restart would forget it
    );
    for (const token of this.departedByToken.keys()) {
      if (this.departedByToken.size <= MAX_DEPARTED) break;
      this.forgetDeparted(token);
    }
  }

  /** A departed session by its resume token. */
  departed(resumeToken: string): DepartedSession | undefined {
    return this.departedByToken.get(resumeToken);
  }

  /** The departed session came back (as a new session) or can come back no more. */
  forgetDeparted(resumeToken: string): void {
    if (this.departedByToken.delete(resumeToken)) this.durable?.delete(resumeToken);
  }

  /** Drops a saved session that can no longer be resumed. */
  forget(resumeToken: string): void {
    this.durable?.delete(resumeToken);
  }

  byToken(resumeToken: string): HumanSession | undefined {
    return this.byResumeToken.get(resumeToken);
  }

  hasEntity(entityId: string): boolean {
    for (const s of this.byId.values()) if (s.actor.entityId === entityId) return true;
    return false;
  }

  values(): IterableIterator<HumanSession> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }
}

function departedRecord(key: string, value: unknown): DepartedSession[] {
  const v = (value ?? {}) as Partial<DepartedSession>;
  const left = v.left as Partial<DepartedSession["left"]> | undefined;
  if (
    typeof v.sessionId !== "string" ||
    typeof v.entityId !== "string" ||
    typeof v.name !== "string" ||
    typeof left?.roomId !== "string" ||
    !Number.isInteger(left.tx) ||
    !Number.isInteger(left.ty) ||
    !Number.isInteger(left.order)
  )
    return [];
  const where = { roomId: left.roomId, tx: left.tx!, ty: left.ty!, order: left.order! };
  return [
    {
      resumeToken: key,
      sessionId: v.sessionId,
      entityId: v.entityId,
      name: v.name,
      ...lookOf(v),
      left: where,
    },
  ];
}

/** A session as the durable space keeps it (its resume token is the key). */
function record(session: HumanSession): Omit<SavedSession, "resumeToken"> {
  const { entityId, name } = session.actor;
  return { sessionId: session.sessionId, entityId, name, ...lookOf(session) };
}

/** A kept record's look, when it holds a valid one. */
function lookOf(v: { look?: unknown }): { look?: number } {
  return Number.isInteger(v.look) && (v.look as number) >= 0 ? { look: v.look as number } : {};
}

/** Each person's look as kept with their session, live or departed, by entity id. */
export function keptLooks(durable: DurableSessions): Map<string, number> {
  const looks = new Map<string, number>();
  for (const { value } of durable.list()) {
    const v = (value ?? {}) as { entityId?: unknown; look?: unknown };
    const { look } = lookOf(v);
    if (typeof v.entityId === "string" && look !== undefined) looks.set(v.entityId, look);
  }
  return looks;
}
