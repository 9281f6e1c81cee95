// Issue #9 through the real gateway: a human's poisonous chat over the real WebSocket is refused and
// no later tick suffers; bad text through /tools/invoke is a 400; the Origin check resists DNS
// rebinding; connections per address are capped; /aic/v0.1/status answers; secrets are 0600/0700.
import { stat } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ServerFrameReader } from "../../src/http/humans/wire-delta.ts";
import { gateway, invokeTool, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_other";

function aic(endpoint: string, body: unknown) {
  const gw = gateway();
  return fetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[AGENT]!.token}` },
    body: JSON.stringify(body),
  });
}

function wsUrl(): string {
  return `${gateway().baseUrl.replace(/^http/, "ws")}/world/ws`;
}

const port = () => Number(new URL(gateway().baseUrl).port);

interface Frames {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  next(predicate: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

async function connect(headers: Record<string, string> = {}): Promise<Frames> {
  const ws = new WebSocket(wsUrl(), { headers });
  const frames: Record<string, unknown>[] = [];
  const waiters: {
    predicate: (f: Record<string, unknown>) => boolean;
    resolve(f: Record<string, unknown>): void;
  }[] = [];
  const reader = new ServerFrameReader();
  ws.on("message", (data, isBinary) => {
    const frame = reader.read(isBinary ? (data as Buffer) : String(data)) as Record<string, unknown>;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.predicate(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return {
    ws,
    frames,
    next(predicate) {
      const seen = frames.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
  };
}

/** How an attempt ends: refused at the upgrade (HTTP status), or opened and then closed by the server. */
function attempt(
  headers: Record<string, string> = {},
): Promise<{ status?: number; close?: [number, string] }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(wsUrl(), { headers });
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode });
      ws.terminate();
    });
    ws.once("close", (code, reason) => resolve({ close: [code, String(reason)] }));
    // Opened: a capacity close follows the handshake, before anything sent on the socket is
    // answered; a pong says the server kept it.
    ws.once("open", () => ws.send(JSON.stringify({ type: "ping" })));
    ws.on("message", (data) => {
      if ((JSON.parse(String(data)) as { type?: string }).type !== "pong") return;
      resolve({ status: 101 });
      ws.close();
    });
    ws.once("error", () => undefined);
  });
}

leaveWhenDone(AGENT);

describe("issue #9 hardening through the real gateway", () => {
  it("a human's half-emoji chat over the WebSocket is refused, never stored, and no later tick fails", async () => {
    // The agent is in the room first, so it could hear (chatObserve) whatever the human manages to say.
    expect((await aic("join", { agentId: AGENT, roomId: "lobby" })).status).toBe(200);
    const human = await connect();
    try {
      human.ws.send(JSON.stringify({ type: "join", name: "Poisoner" }));
      await human.next((f) => f.type === "welcome");
      // The escape reaches JSON.parse on the server as a lone surrogate (a ws client would replace a
      // raw one with U+FFFD while encoding UTF-8, so the frame is written by hand).
      human.ws.send('{"type":"chat_send","channel":"global","message":"half an emoji \\ud83d"}');
      const refused = await human.next(
        (f) => f.type === "error" && String(f.message).includes("well-formed"),
      );
      expect(refused).toMatchObject({ code: "bad_request", retryable: false });
      expect(String(refused.message)).toContain("message: must be well-formed Unicode");
      human.ws.send(JSON.stringify({ type: "chat_send", channel: "global", message: "after the poison 😀" }));
      await human.next((f) => f.type === "result" && f.for === "chat_send");

      // An agent's hash-guarded actions still get their typed answer: the snapshot still hashes.
      for (let i = 0; i < 3; i++) {
        const guarded = await aic("moveTo", {
          agentId: AGENT,
          roomId: "lobby",
          txId: `tx_e2e_poison_${Date.now()}_${i}`,
          dest: { tx: 5, ty: 5 },
          expect: { snapshotHash: "0".repeat(64) },
        });
        expect(guarded.status).toBe(200);
        const answer = await guarded.json();
        expect(answer).toMatchObject({ status: "error", error: { code: "conflict" } });
        expect(answer.error.details.actual).toMatch(/^[0-9a-f]{64}$/);
      }
      const chat = await (
        await aic("chatObserve", { agentId: AGENT, roomId: "lobby", windowSec: 300 })
      ).json();
      const texts = (chat.data.messages as { message: string; fromName: string }[]).map((m) => m.message);
      expect(texts).toContain("after the poison 😀");
      expect(texts.some((t) => t.startsWith("half an emoji"))).toBe(false);

      // The public status shows no internals (no exception text, no health counters).
      const status = await (await fetch(`${gateway().baseUrl}/world/api/status`)).text();
      expect(status).not.toMatch(/lastError|Lone surrogate/);
    } finally {
      human.ws.close();
    }
  });

  it("ocw_chat_send with a lone surrogate through /tools/invoke is 400 naming the field", async () => {
    const answer = await invokeTool(
      "ocw_chat_send",
      { message: "\ud800", channel: "global" },
      { agentId: "hard_chatter" },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain("message: must be well-formed Unicode");
  });

  it("DNS rebinding: a page at evil.example (Host agreeing with Origin) cannot open the WebSocket", async () => {
    const evil = `evil.example:${port()}`;
    expect(await attempt({ origin: `http://${evil}`, host: evil })).toEqual({ status: 403 });
    expect(await attempt({ origin: `http://127.0.0.1:${port()}` })).toEqual({ status: 101 });
  });

  it("connections per address are capped with close 1013 and a reason", async () => {
    const open: WebSocket[] = [];
    try {
      let refusal: [number, string] | undefined;
      for (let i = 0; i < 25 && !refusal; i++) {
        const ws = new WebSocket(wsUrl());
        open.push(ws);
        const end = await new Promise<[number, string] | undefined>((resolve) => {
          ws.once("close", (code, reason) => resolve([code, String(reason)]));
          // Kept (a pong), or closed with the reason (a capacity close comes before any answer).
          ws.once("open", () => ws.send(JSON.stringify({ type: "ping" })));
          ws.on("message", (data) => {
            if ((JSON.parse(String(data)) as { type?: string }).type === "pong") resolve(undefined);
          });
          ws.once("error", () => undefined);
        });
        refusal = end;
      }
      expect(refusal).toEqual([1013, "too many connections from this address (limit 20)"]);
      expect(open.length).toBeLessThanOrEqual(21);
    } finally {
      for (const ws of open) ws.terminate();
    }
  });

  it("GET /aic/v0.1/status answers without credentials", async () => {
    const res = await fetch(`${gateway().baseUrl}/aic/v0.1/status`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", data: { aicVersion: "0.1", running: true } });
  });

  it("the gateway config holding agent tokens is 0600 in 0700 directories", async () => {
    const root = path.dirname(gateway().logFile);
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(path.join(root, "state", "openclaw.json"))).toBe(0o600);
    for (const dir of [root, path.join(root, "state")]) expect(await mode(dir), dir).toBe(0o700);
  });
});
