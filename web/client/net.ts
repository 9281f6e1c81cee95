// The WebSocket to the world: joins (or resumes) on every (re)connect, reconnects by itself with
// backoff, and reports its state so the UI can show it. Text frames are JSON; actor deltas come as
// binary frames (src/http/humans/wire-delta.ts, docs/web-wire.md), decoded by the same code the
// server encodes with. A frame that does not decode drops the socket: the resume that follows starts
// from a full snapshot, so the client never shows a state it could not read.
import { ServerFrameReader } from "../../src/http/humans/wire-delta.ts";

export type ConnState = "connecting" | "online" | "reconnecting" | "offline";

// biome-ignore lint/suspicious/noExplicitAny: server messages are JSON produced by our own server
export type ServerMessage = { type: string; [key: string]: any };

const RESUME_KEY = "ocw.resumeToken";

/** The actions the world answers (a `result` or an `error`). Each is sent with a txId, the agents'
 * exactly-once rule (src/aic/action-path.ts): one the socket dropped before its answer came (the
 * network, a restarted fan-out process) is sent again with the same id once the session resumes, and
 * the world answers a resend of what it already applied from its record instead of applying it
 * twice. A held direction (`move_intent`) is not resent: the next key press replaces it. */
const ANSWERED_ACTIONS: ReadonlySet<string> = new Set([
  "chat_send",
  "interact",
  "approach",
  // An action kind as its file shapes it (src/world/actions): a walk, a gesture.
  "act",
]);
/** Unanswered actions kept for a resend: the oldest go beyond this (a long outage). */
const MAX_UNANSWERED = 32;

export interface ConnectionHandlers {
  onMessage(message: ServerMessage): void;
  onState(state: ConnState, detail?: string): void;
}

export class Connection {
  private ws: WebSocket | undefined;
  private attempts = 0;
  private retryTimer: number | undefined;
  private stopped = false;
  private readonly handlers: ConnectionHandlers;
  name = "";
  joinCode: string | undefined;
  look: number | undefined;
  /** A travel link's secret (`?claim=`): sent with the join until it is answered. */
  claim: string | undefined;
  state: ConnState = "connecting";
  /** What arrived, by kind (the e2e tests check the binary deltas are what moves actors). */
  readonly frames = { text: 0, binary: 0, binaryBytes: 0, snapshots: 0, refused: 0 };
  /** Actions sent and not answered yet, by txId, in the order they were sent. */
  private readonly unanswered = new Map<string, Record<string, unknown>>();
  /** This page's txIds: a random part (a reload resumes the same person) and a counter. */
  private readonly txPrefix = `tx_web_${randomPart()}_`;
  private txCount = 0;
  /** Actions sent again after a resume (for tests and the curious). */
  resent = 0;

  constructor(handlers: ConnectionHandlers) {
    this.handlers = handlers;
  }

  start(name: string, joinCode?: string, look?: number): void {
    this.name = name;
    this.joinCode = joinCode;
    this.look = look;
    this.stopped = false;
    this.open();
  }

  send(message: Record<string, unknown>): boolean {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    let out = message;
    if (ANSWERED_ACTIONS.has(String(message.type)) && message.txId === undefined) {
      out = { ...message, txId: `${this.txPrefix}${++this.txCount}` };
      this.unanswered.set(String(out.txId), out);
      for (const txId of this.unanswered.keys()) {
        if (this.unanswered.size <= MAX_UNANSWERED) break;
        this.unanswered.delete(txId);
      }
    }
    this.ws.send(JSON.stringify(out));
    return true;
  }

  /** The txIds of actions sent and not answered yet. */
  unansweredTxIds(): string[] {
    return [...this.unanswered.keys()];
  }

  /** An answer settles its action; a resumed session gets the unanswered ones again (same txIds), a
   * new person does not (they were another person's). */
  private settle(message: ServerMessage): void {
    if ((message.type === "result" || message.type === "error") && typeof message.txId === "string")
      this.unanswered.delete(message.txId);
    if (message.type !== "welcome") return;
    if (!message.resumed) this.unanswered.clear();
    for (const action of this.unanswered.values()) {
      this.ws?.send(JSON.stringify(action));
      this.resent += 1;
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) window.clearTimeout(this.retryTimer);
    this.ws?.close();
  }

  /** The page is going away (a tab closed, a reload): close with 4100 so the server lets the
   * character go within seconds (a reload resumes it first), and do not reconnect. */
  closePage(): void {
    this.stopped = true;
    if (this.retryTimer) window.clearTimeout(this.retryTimer);
    this.ws?.close(4100, "page closed");
  }

  /** The character went to another gateway: this page goes there (a full page load on its own
   * origin); this socket is not reconnected. Only an http(s) address is followed. */
  travel(url: string): boolean {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") return false;
    this.stopped = true;
    if (this.retryTimer) window.clearTimeout(this.retryTimer);
    this.setState("connecting", "travelling to another world…");
    this.ws?.close(4100, "travelled");
    window.location.assign(target.href);
    return true;
  }

  /** Drop the socket as a flaky network would (the client then reconnects by itself). */
  drop(): void {
    this.ws?.close(4001, "dropped by the client");
  }

  /** The server refused us for good (e.g. a wrong join code): stop retrying. */
  giveUp(detail: string): void {
    this.stopped = true;
    this.setState("offline", detail);
  }

  rememberResume(token: string): void {
    sessionStorage.setItem(RESUME_KEY, token);
  }

  /** A travel link is sent until the world answers it (after the page has seen the answer). Let
   * in, the page is the person the world names: it joined with a placeholder, and a reconnect that
   * asked for that name with this gateway's resume token would be taken for someone new (the
   * arrived person leaving). Refused, the link is not sent again. */
  private answered(message: ServerMessage): void {
    if (this.claim === undefined) return;
    if (message.type === "welcome") {
      if (typeof message.name === "string") this.name = message.name;
      this.claim = undefined;
    } else if (message.type === "error" && message.for === "join" && message.code === "claim_invalid")
      this.claim = undefined;
  }

  private setState(state: ConnState, detail?: string): void {
    this.state = state;
    this.handlers.onState(state, detail);
  }

  private open(): void {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/world/ws`;
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    const reader = new ServerFrameReader();
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempts = 0;
      const resumeToken = sessionStorage.getItem(RESUME_KEY) ?? undefined;
      ws.send(
        JSON.stringify({
          type: "join",
          name: this.name,
          ...(resumeToken ? { resumeToken } : {}),
          ...(this.joinCode ? { joinCode: this.joinCode } : {}),
          ...(this.look !== undefined ? { look: this.look } : {}),
          ...(this.claim ? { claim: this.claim } : {}),
        }),
      );
    });
    ws.addEventListener("message", (event) => {
      let message: ServerMessage;
      try {
        if (typeof event.data === "string") {
          message = reader.read(event.data);
          this.frames.text += 1;
          if (message.type === "welcome" || message.type === "room") this.frames.snapshots += 1;
        } else {
          const bytes = new Uint8Array(event.data as ArrayBuffer);
          message = reader.read(bytes);
          this.frames.binary += 1;
          this.frames.binaryBytes += bytes.length;
        }
      } catch (error) {
        console.warn("unreadable server frame; resyncing", error);
        this.frames.refused += 1;
        ws.close(4002, "unreadable server frame");
        return;
      }
      try {
        this.handlers.onMessage(message);
      } catch (error) {
        console.warn("bad server message", error);
      }
      this.answered(message);
      this.settle(message);
    });
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      if (this.stopped) return;
      const delay = Math.min(10_000, 500 * 2 ** this.attempts) + Math.random() * 250;
      this.attempts += 1;
      this.setState("reconnecting", `reconnecting in ${Math.ceil(delay / 1000)} s`);
      this.retryTimer = window.setTimeout(() => this.open(), delay);
    });
  }
}

/** 12 random base-36 characters (a txId's page part). */
function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => (b % 36).toString(36)).join("");
}
