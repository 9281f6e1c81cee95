// A human's lifecycle in the world, named after Colyseus' room hooks: onJoin (a new character),
// onReconnect (a new socket resumes a session within the grace period), onDrop (the socket closed:
// the character stays for the grace period) and onLeave (the grace period ran out: the character
// leaves). Every change to the world is an action through AicService.act. A resume token outlives
// the grace period: its page, coming back later, rejoins as the same character (same id and name)
// in the room and on the tile where it left.
//
// Two kinds of drop: the network (the person may not know yet: shown "away", kept for the full grace
// period) and the page going away on purpose (a tab closed, a reload: nobody is shown away, and the
// character leaves after a short grace unless the reloaded page resumes it first). A resume that asks
// for another name is someone new: the old character leaves at once and a new one joins; one that
// asks only for another look keeps its character and changes its look.
import type { WebSocket } from "ws";
import { decodeCursor } from "../../aic/cursor.ts";
import type { WorldReads } from "../../aic/reads.ts";
import type { AicService } from "../../aic/service.ts";
import { CLAIM_TTL_MS, type ClaimBook, type ClaimOutcome, claimRefusalText } from "./claims.ts";
import type { JoinDecision, Seat } from "./connection-admission.ts";
import { isNameFor, uniqueName } from "./names.ts";
import type { PresenceState } from "./presence-state.ts";
import type { ClientMessageT, ServerMessage } from "./protocol.ts";
import {
  type Connection,
  type DepartedSession,
  type HumanSession,
  newSession,
  restoredSession,
  type SessionStore,
} from "./session.ts";
import type { ViewSync } from "./view-sync.ts";

export interface RoomHooksDeps {
  /** Only its action door: a fan-out process reaches it over IPC (src/plugin/fanout). */
  service: Pick<AicService, "act">;
  reads: WorldReads;
  sessions: SessionStore;
  view: ViewSync;
  presence: PresenceState;
  send(ws: WebSocket | undefined, message: ServerMessage): void;
  sendError(ws: WebSocket, code: string, message: string, retryable: boolean, forType?: string): void;
  /** A timer the surface owns (cleared on close, errors logged). */
  later(fn: () => Promise<void> | void, ms: number): ReturnType<typeof setTimeout>;
  graceMs: number;
  /** The grace after a page went away on purpose (a closed tab, a reload); default PAGE_LEFT_GRACE_MS. */
  pageLeftGraceMs?: number;
  joinCode: string | undefined;
  /** Interest radius in world units. */
  interestRadius(): number;
  /** Actors a browser is streamed at most, its own included (interest.ts). */
  maxVisible?: number;
  /** The entity id of a new human. */
  humanId(): string;
  /** Whether a new character from `address` may join now (seat rule, load shedding: admission.ts),
   * given the joins still on their way in, and which dropped sessions give up their seats for it. */
  admitJoin?(address: string, joining: readonly Seat[]): JoinDecision<HumanSession | Seat>;
  /** Arrivals through portals from other gateways, claimable by their travel link (claims.ts). */
  claims?: ClaimBook;
  /** How long a claim not known yet is waited for; default ARRIVAL_WAIT_MS. */
  arrivalWaitMs?: number;
}

/** The browser is sent on once the transfer is stored, and the target applies it a tick or two
 * later (~25 ms, docs/cluster.md): a page load is usually slower, but on a busy target the claim may
 * come first. It is waited for this long before it is called unknown. */
export const ARRIVAL_WAIT_MS = 5_000;
const ARRIVAL_POLL_MS = 100;

/** Long enough for a reload to come back (a page load and a WebSocket handshake), short enough that a
 * closed tab's character is gone before anyone wonders why it stands there. */
export const PAGE_LEFT_GRACE_MS = 6000;

/** Why a socket closed: the network dropped it, or the page went away on purpose. */
export type DropCause = "network" | "page";

export interface RoomHooks {
  onJoin(ws: WebSocket, conn: Connection, msg: Extract<ClientMessageT, { type: "join" }>): Promise<void>;
  onReconnect(ws: WebSocket, conn: Connection, session: HumanSession, look?: number): void;
  onDrop(session: HumanSession, cause?: DropCause): void;
  onLeave(session: HumanSession): Promise<void>;
  /** Sessions saved before a restart come back dropped: their resume token works for one grace
   * period from now (the restart itself cut every socket). */
  resumeSaved(): void;
  /** Humans of a restored world without a session (none saved, or persistence off) leave after the
   * grace period, like any dropped human. */
  leaveGhosts(): void;
  /** A human arrived here through a portal from another gateway: its browser may claim it by the
   * secret of `claimHash` until the claim expires; unclaimed by then, the character leaves. */
  expectArrival(claimHash: string, entityId: string): void;
  /** A human went through a portal to another gateway: its browser is told where to go, and its
   * session here ends (the character left already). Whether a connected browser was told. */
  travel(entityId: string, url: string): boolean;
}

export function createRoomHooks(deps: RoomHooksDeps): RoomHooks {
  const { service, reads, sessions, view, presence, send, sendError } = deps;
  /** Drops so far: orders dropped sessions for the seat rule (admission.ts). */
  let drops = 0;
  /** Seats of joins admitted but not yet in the world. */
  const joining = new Set<Seat>();

  /** A human's connection dropped or came back: everyone connected in their room is told. */
  function announceAway(session: HumanSession, away: boolean): void {
    const id = session.actor.entityId;
    if (!presence.setAway(id, away)) return;
    const roomId = reads.getEntity(id)?.roomId;
    if (!roomId) return;
    for (const other of sessions.values())
      if (other.ws && other.roomId === roomId) send(other.ws, { type: "presence", id, away });
  }

  /** Names of everyone present in any room (a newcomer's name is made unique among them). */
  function everyoneNames(): string[] {
    return Object.keys(reads.definition.rooms).flatMap((roomId) =>
      reads.actorsInRoom(roomId).map((a) => a.name),
    );
  }

  function onReconnect(ws: WebSocket, conn: Connection, session: HumanSession, look?: number): void {
    if (session.ws && session.ws !== ws) session.ws.close(4000, "resumed elsewhere");
    if (session.graceTimer) clearTimeout(session.graceTimer);
    session.graceTimer = undefined;
    session.droppedOrder = undefined;
    session.ws = ws;
    conn.session = session;
    announceAway(session, false);
    // The look is the page's to choose (the world does not model it): a new pick applies at once.
    if (look !== undefined) {
      presence.setLook(session.actor.entityId, look);
      sessions.setLook(session, look);
    }
    const self = reads.getEntity(session.actor.entityId)!;
    send(ws, {
      type: "welcome",
      sessionId: session.sessionId,
      resumeToken: session.resumeToken,
      entityId: self.id,
      name: self.name,
      resumed: true,
      room: view.roomInfo(self.roomId),
      ...view.enterRoom(session, self, reads.latestSeq(self.roomId)),
      tick: reads.tick,
      serverTsMs: reads.serverTsMs,
    });
  }

  async function onJoin(
    ws: WebSocket,
    conn: Connection,
    msg: Extract<ClientMessageT, { type: "join" }>,
  ): Promise<void> {
    if (conn.session) return sendError(ws, "conflict", "this connection has already joined", false, "join");
    // A valid claim stands for the join code: the world took the person in already, by its portal.
    if (msg.claim !== undefined) return onClaim(ws, conn, msg.claim, msg.look);
    if (deps.joinCode !== undefined && msg.joinCode !== deps.joinCode) {
      sendError(ws, "forbidden", "this world is private: a valid join code is required", false, "join");
      ws.close(4003, "join code required");
      return;
    }
    const resumable = msg.resumeToken ? sessions.byToken(msg.resumeToken) : undefined;
    if (resumable && reads.getEntity(resumable.actor.entityId)) {
      if (isNameFor(msg.name, resumable.actor.name)) return onReconnect(ws, conn, resumable, msg.look);
      // Someone else now (the join form asked for another name): the old character goes now.
      if (resumable.ws && resumable.ws !== ws) resumable.ws.close(4000, "resumed elsewhere");
      if (resumable.graceTimer) clearTimeout(resumable.graceTimer);
      resumable.ws = undefined;
      await onLeave(resumable);
    }
    const back = !resumable && msg.resumeToken ? comingBack(msg.resumeToken, msg.name) : undefined;
    const admitted = deps.admitJoin?.(conn.address, [...joining]);
    if (admitted && !admitted.ok) {
      sendError(ws, "rate_limited", admitted.refusal.reason, true, "join");
      ws.close(admitted.refusal.code, admitted.refusal.reason);
      return;
    }
    // Its seat is taken from now, not from when its join has gone through the tick: joins arriving
    // meanwhile must count it.
    const seat: Seat = { address: conn.address, droppedOrder: undefined };
    joining.add(seat);
    try {
      await joinAs(ws, conn, msg, admitted?.reclaim ?? [], back);
    } finally {
      joining.delete(seat);
    }
  }

  /** The departed character a join's resume token brings back, when it asks for that name and the
   * character is nobody else's now; a token asking for another name is someone new (it is dropped). */
  function comingBack(resumeToken: string, name: string): DepartedSession | undefined {
    const departed = sessions.departed(resumeToken);
    if (!departed) return undefined;
    if (isNameFor(name, departed.name) && !sessions.hasEntity(departed.entityId)) return departed;
    sessions.forgetDeparted(resumeToken);
    return undefined;
  }

  /** A departed character joins where it left; a room the world no longer has: where anyone joins. */
  async function rejoin(session: HumanSession, back: DepartedSession | undefined) {
    if (!back) return service.act(session.actor, { kind: "join" });
    const { roomId, tx, ty } = back.left;
    const there = await service.act(session.actor, { kind: "join", roomId, at: { tx, ty } });
    return there.status === "error" && there.error.code === "not_found"
      ? service.act(session.actor, { kind: "join" })
      : there;
  }

  async function joinAs(
    ws: WebSocket,
    conn: Connection,
    msg: Extract<ClientMessageT, { type: "join" }>,
    reclaim: readonly (HumanSession | Seat)[],
    back?: DepartedSession,
  ): Promise<void> {
    for (const dropped of reclaim) {
      if (!("actor" in dropped)) continue; // a join still on its way in holds no session to reclaim
      if (dropped.graceTimer) clearTimeout(dropped.graceTimer);
      dropped.graceTimer = undefined;
      await onLeave(dropped, true);
    }
    // A departed character still in the world (a restart's ghost) keeps its own name.
    const name =
      back && reads.getEntity(back.entityId)
        ? back.name
        : uniqueName(back?.name ?? msg.name, everyoneNames());
    const session = newSession(
      name,
      ws,
      deps.interestRadius(),
      back?.entityId ?? deps.humanId(),
      deps.maxVisible,
      conn.address,
    );
    conn.session = session;
    if (msg.look !== undefined) session.look = msg.look;
    presence.setLook(session.actor.entityId, msg.look);
    const joined = await rejoin(session, back);
    if (joined.status === "error") {
      conn.session = undefined;
      presence.forget(session.actor.entityId);
      return sendError(ws, joined.error.code, joined.error.message, joined.error.retryable, "join");
    }
    const data = joined.data as { roomId: string; cursor: string };
    if (back) sessions.forgetDeparted(back.resumeToken);
    try {
      await sessions.add(session);
    } catch {
      // Acknowledged means durable: a resume token the store did not keep would not survive a
      // restart, so none is handed out and the character leaves again.
      if (session.graceTimer) clearTimeout(session.graceTimer);
      conn.session = undefined;
      await onLeave(session);
      return sendError(ws, "internal", "the session could not be saved; join again", true, "join");
    }
    if (ws.readyState !== ws.OPEN) return onDrop(session);
    const self = reads.getEntity(session.actor.entityId);
    if (!self) return sendError(ws, "internal", "joined but not present", true, "join");
    const cursor = decodeCursor(data.cursor, data.roomId);
    send(ws, {
      type: "welcome",
      sessionId: session.sessionId,
      resumeToken: session.resumeToken,
      entityId: self.id,
      name: self.name,
      // The same character came back: the page keeps what it has (no "name taken", no first hint).
      resumed: back !== undefined,
      room: view.roomInfo(self.roomId),
      ...view.enterRoom(session, self, cursor.ok ? cursor.position.afterSeq : reads.latestSeq(self.roomId)),
      tick: reads.tick,
      serverTsMs: reads.serverTsMs,
    });
  }

  /** A travel link: a new session on the character that arrived here, like a resume (with this
   * gateway's own resume token from now on). */
  async function onClaim(ws: WebSocket, conn: Connection, secret: string, look?: number): Promise<void> {
    const outcome = await takeClaim(secret);
    const self = outcome.ok ? reads.getEntity(outcome.entityId) : undefined;
    if (!outcome.ok || self?.kind !== "human" || sessions.hasEntity(self.id)) {
      const text = claimRefusalText(outcome.ok ? "used" : outcome.reason);
      return sendError(ws, "claim_invalid", text, false, "join");
    }
    const session = newSession(self.name, ws, deps.interestRadius(), self.id, deps.maxVisible, conn.address);
    try {
      await sessions.add(session);
    } catch {
      sessions.remove(session);
      return sendError(ws, "internal", "the session could not be saved; join again", true, "join");
    }
    if (ws.readyState !== ws.OPEN) return onDrop(session);
    onReconnect(ws, conn, session, look);
  }

  async function takeClaim(secret: string): Promise<ClaimOutcome> {
    const deadline = Date.now() + (deps.arrivalWaitMs ?? ARRIVAL_WAIT_MS);
    for (;;) {
      const outcome: ClaimOutcome = deps.claims?.take(secret) ?? { ok: false, reason: "unknown" };
      if (outcome.ok || outcome.reason !== "unknown" || Date.now() >= deadline) return outcome;
      await new Promise((resolve) => setTimeout(resolve, ARRIVAL_POLL_MS));
    }
  }

  function expectArrival(claimHash: string, entityId: string): void {
    deps.claims?.record(claimHash, entityId);
    const self = reads.getEntity(entityId);
    if (self) leaveUnlessClaimed(self, CLAIM_TTL_MS);
  }

  function travel(entityId: string, url: string): boolean {
    for (const session of sessions.values()) {
      if (session.actor.entityId !== entityId) continue;
      const ws = session.ws;
      send(ws, { type: "travel", url });
      if (session.graceTimer) clearTimeout(session.graceTimer);
      session.graceTimer = undefined;
      // Its socket's close is no drop: the character is in the other world already.
      session.ws = undefined;
      sessions.remove(session);
      presence.forget(entityId);
      return ws !== undefined && ws.readyState === ws.OPEN;
    }
    return false;
  }

  function onDrop(session: HumanSession, cause: DropCause = "network"): void {
    session.ws = undefined;
    session.droppedOrder = ++drops;
    const pageLeft = cause === "page";
    if (!pageLeft) announceAway(session, true);
    if (session.graceTimer) clearTimeout(session.graceTimer);
    const grace = pageLeft
      ? Math.min(deps.graceMs, deps.pageLeftGraceMs ?? PAGE_LEFT_GRACE_MS)
      : deps.graceMs;
    session.graceTimer = deps.later(async () => {
      if (!session.ws) await onLeave(session, true);
    }, grace);
  }

  /** The character leaves the world. `keepToken`: its page may bring it back later (the grace period
   * ran out, its seat was reclaimed), so its resume token is kept with where it stood. */
  async function onLeave(session: HumanSession, keepToken = false): Promise<void> {
    const self = reads.getEntity(session.actor.entityId);
    if (keepToken && self) sessions.depart(session, { roomId: self.roomId, ...self.tile });
    else sessions.remove(session);
    presence.forget(session.actor.entityId);
    await service.act(session.actor, { kind: "leave" });
  }

  function resumeSaved(): void {
    for (const saved of sessions.saved()) {
      const self = reads.getEntity(saved.entityId);
      if (self?.kind !== "human") {
        sessions.forget(saved.resumeToken);
        continue;
      }
      const session = restoredSession(saved, deps.interestRadius(), deps.maxVisible);
      sessions.restore(session);
      // Drawn as before the restart while its page finds its way back.
      presence.setLook(saved.entityId, saved.look);
      onDrop(session);
    }
  }

  function leaveGhosts(): void {
    for (const roomId of Object.keys(reads.definition.rooms)) {
      for (const ghost of reads.actorsInRoom(roomId).filter((a) => a.kind === "human"))
        leaveUnlessClaimed(ghost, deps.graceMs);
    }
  }

  /** A human nobody's browser holds leaves after `ms`, unless a session took it by then. */
  function leaveUnlessClaimed(ghost: { id: string; name: string }, ms: number): void {
    deps.later(async () => {
      if (sessions.hasEntity(ghost.id) || !reads.getEntity(ghost.id)) return;
      await service.act(
        { entityId: ghost.id, kind: "human", name: ghost.name, rateKey: `ghost:${ghost.id}` },
        { kind: "leave" },
      );
    }, ms);
  }

  return { onJoin, onReconnect, onDrop, onLeave, resumeSaved, leaveGhosts, expectArrival, travel };
}
