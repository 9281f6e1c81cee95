// A human's session: who they are in the world (the actor the server built for them), the socket
// they are on now (none while dropped), and what their browser has been sent. A session outlives
// its socket for the resume grace period; the resume token is how a new socket claims it.
import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";
import type { Actor } from "../../aic/service.ts";
import { HUMAN_ENTITY_PREFIX } from "../../world/ids.ts";
import { InterestSet } from "./interest.ts";
import type { WireEntity } from "./protocol.ts";

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
  sent: Map<string, WireEntity>;
  interest: InterestSet;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
}

/** One WebSocket; it gets a session when it joins (or resumes one). */
export interface Connection {
  id: string;
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
    sent: new Map(),
    interest: new InterestSet(interestRadius, interestRadius * 1.25),
    graceTimer: undefined,
  };
}

/** Live sessions, by id and by resume token. */
export class SessionStore {
  private readonly byId = new Map<string, HumanSession>();
  private readonly byResumeToken = new Map<string, HumanSession>();

  add(session: HumanSession): void {
    this.byId.set(session.sessionId, session);
    this.byResumeToken.set(session.resumeToken, session);
  }

  remove(session: HumanSession): void {
    this.byId.delete(session.sessionId);
    this.byResumeToken.delete(session.resumeToken);
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
