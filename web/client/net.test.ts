// The page's connection after a travel link let it in: a reconnect must resume the person the world
// let in. The page joined by the link with a placeholder name (this origin does not know the
// person's name yet), and the server takes a resume that asks for another name as someone new
// (room-hooks.ts onJoin): the person who arrived would leave, and a "Traveller" join in their stead.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Connection, type ServerMessage } from "./net.ts";

/** A browser WebSocket as far as Connection uses it; the test plays the server. */
class FakeSocket {
  static readonly OPEN = 1;
  static opened: FakeSocket[] = [];
  readyState = 0;
  binaryType = "blob";
  readonly sent: Record<string, unknown>[] = [];
  private readonly listeners = new Map<string, ((event: { data?: unknown }) => void)[]>();

  constructor() {
    FakeSocket.opened.push(this);
  }

  addEventListener(type: string, listener: (event: { data?: unknown }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  send(text: string): void {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }

  close(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit("close", {});
  }

  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.emit("open", {});
  }

  receive(message: Record<string, unknown>): void {
    this.emit("message", { data: JSON.stringify(message) });
  }

  private emit(type: string, event: { data?: unknown }): void {
    for (const listener of this.listeners.get(type) ?? []) listener(event);
  }
}

const storage = () => {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
};

beforeEach(() => {
  vi.useFakeTimers();
  FakeSocket.opened = [];
  vi.stubGlobal("WebSocket", FakeSocket);
  vi.stubGlobal("window", globalThis);
  vi.stubGlobal("location", { protocol: "http:", host: "127.0.0.1:9" });
  vi.stubGlobal("sessionStorage", storage());
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** The welcome a claim join gets: the arrived person, resumed, with this gateway's own token. */
const welcome = {
  type: "welcome",
  entityId: "hum_wren",
  name: "Wren",
  resumed: true,
  resumeToken: "tok_bbbbbbbbbbbbbbbbbbbb",
  entities: [],
};

describe("a page let in by a travel link", () => {
  it("reconnects as the person the world let in, by this gateway's token, without the used link", () => {
    const seen: ServerMessage[] = [];
    const connection = new Connection({ onMessage: (m) => seen.push(m), onState: () => {} });
    connection.claim = "secret_aaaaaaaaaaaaaaaa";
    connection.start("Traveller");
    const first = FakeSocket.opened[0]!;
    first.open();
    expect(first.sent).toEqual([{ type: "join", name: "Traveller", claim: "secret_aaaaaaaaaaaaaaaa" }]);

    first.receive(welcome);
    // The page's own handler saw the welcome while the link was still the one it answered.
    expect(seen.map((m) => m.type)).toEqual(["welcome"]);
    connection.rememberResume(String(welcome.resumeToken));

    // The network drops the socket: the connection comes back by itself.
    first.close();
    vi.advanceTimersByTime(11_000);
    const second = FakeSocket.opened[1]!;
    second.open();
    expect(second.sent).toEqual([{ type: "join", name: "Wren", resumeToken: welcome.resumeToken }]);
  });

  it("a refused link is not sent again: the join form's join is someone new", () => {
    const connection = new Connection({ onMessage: () => {}, onState: () => {} });
    connection.claim = "secret_aaaaaaaaaaaaaaaa";
    connection.start("Traveller");
    const first = FakeSocket.opened[0]!;
    first.open();
    first.receive({ type: "error", code: "claim_invalid", message: "used", retryable: false, for: "join" });
    connection.giveUp("used");

    connection.start("Ada");
    const second = FakeSocket.opened[1]!;
    second.open();
    expect(second.sent).toEqual([{ type: "join", name: "Ada" }]);
  });
});

describe("actions the world answers carry a txId (the agents' exactly-once rule)", () => {
  /** A connection whose first socket is open and welcomed as `name`. */
  function online() {
    const connection = new Connection({ onMessage: () => {}, onState: () => {} });
    connection.start("Ada");
    const first = FakeSocket.opened[0]!;
    first.open();
    first.receive({ ...welcome, name: "Ada", resumed: false });
    return { connection, first };
  }

  it("an unanswered chat is sent again with the same txId once the session resumes; an answered one is not", () => {
    const { connection, first } = online();
    connection.send({ type: "chat_send", channel: "global", message: "answered" });
    connection.send({ type: "chat_send", channel: "global", message: "lost" });
    connection.send({ type: "move_intent", dx: 1, dy: 0 });
    const [answered, lost, held] = first.sent.slice(1);
    expect(answered!.txId).toMatch(/^tx_[a-zA-Z0-9._-]{8,128}$/);
    expect(lost!.txId).not.toBe(answered!.txId);
    expect(held!.txId).toBeUndefined(); // a held direction is a state, not a transaction
    first.receive({ type: "result", for: "chat_send", data: { applied: true }, txId: answered!.txId });
    expect(connection.unansweredTxIds()).toEqual([lost!.txId]);

    // The fan-out process dies with the second chat's answer in it: the page resumes and resends it.
    first.close();
    vi.advanceTimersByTime(11_000);
    const second = FakeSocket.opened[1]!;
    second.open();
    expect(second.sent).toHaveLength(1); // the join; nothing before the world said who this is
    second.receive(welcome);
    expect(second.sent.slice(1)).toEqual([lost]);
    expect(connection.resent).toBe(1);
    second.receive({ type: "result", for: "chat_send", data: { applied: true }, txId: lost!.txId });
    expect(connection.unansweredTxIds()).toEqual([]);
  });

  it("an error answers its action too; a join as someone new drops what the old person left unanswered", () => {
    const { connection, first } = online();
    connection.send({ type: "act", action: { kind: "moveTo", dest: { tx: 1, ty: 2 } } });
    connection.send({ type: "interact", targetId: "obj_sign_welcome", action: "read" });
    const [move, use] = first.sent.slice(1);
    first.receive({
      type: "error",
      code: "collision_blocked",
      message: "x",
      retryable: false,
      txId: move!.txId,
    });
    expect(connection.unansweredTxIds()).toEqual([use!.txId]);
    first.close();
    vi.advanceTimersByTime(11_000);
    const second = FakeSocket.opened[1]!;
    second.open();
    second.receive({ ...welcome, resumed: false });
    expect(second.sent).toHaveLength(1);
    expect(connection.unansweredTxIds()).toEqual([]);
  });
});
