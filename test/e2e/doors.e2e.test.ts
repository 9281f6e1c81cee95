// Issue #30 at the HTTP and WebSocket doors of the real gateway: a DNS-rebinding Host gets nothing;
// the plugin's answers carry no wall-clock Date; a burst of protocol pings is answered, not cut; an
// agent's SSE streams are bounded with a typed 429; a name that reorders its text cannot join.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { RawWebSocket } from "../support/raw-socket.ts";
import { holdsFor } from "../support/wait.ts";
import { gateway, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_doors";
const port = () => Number(new URL(gateway().baseUrl).port);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET with the Host and headers given (fetch may not set Host); a stream is cut after its headers. */
function get(path: string, headers: Record<string, string> = {}, stream = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: port(), path, headers: { host: `127.0.0.1:${port()}`, ...headers } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
          if (stream) {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
            req.destroy();
          }
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", (error) => (stream ? undefined : reject(error)));
    req.end();
  });
}

const bearer = () => ({ authorization: `Bearer ${gateway().agents[AGENT]!.token}` });

async function joinAgent(): Promise<void> {
  const res = await fetch(`${gateway().baseUrl}/aic/v0.1/join`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer() },
    body: JSON.stringify({ agentId: AGENT, roomId: "lobby" }),
  });
  expect(res.status).toBe(200);
}

leaveWhenDone(AGENT);

describe("issue #30: the HTTP and WebSocket doors of the real gateway", () => {
  it("DNS rebinding: with Host evil.example the status, the client, the metrics and the AIC answer 403", async () => {
    for (const path of ["/world/metrics", "/world/api/status", "/world/", "/aic/v0.1/status"]) {
      const rebound = await get(path, { host: `evil.example:${port()}` });
      expect(rebound.status, path).toBe(403);
      expect(JSON.parse(rebound.body), path).toMatchObject({ status: "error", error: { code: "forbidden" } });
      expect((await get(path)).status, path).toBe(200);
    }
  });

  it("the plugin's answers carry no Date header: JSON, static files, metrics and an SSE stream", async () => {
    await joinAgent();
    for (const path of ["/aic/v0.1/status", "/world/api/status", "/world/", "/world/metrics"]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.date, path).toBeUndefined();
    }
    const sse = await get(`/aic/v0.1/events/stream?roomId=lobby&agentId=${AGENT}`, bearer(), true);
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toContain("text/event-stream");
    expect(sse.headers.date).toBeUndefined();
  });

  it("an agent's SSE streams are bounded: the fifth is a retryable 429 rate_limited", async () => {
    await joinAgent();
    const controllers: AbortController[] = [];
    try {
      const open = async () => {
        const controller = new AbortController();
        controllers.push(controller);
        return fetch(`${gateway().baseUrl}/aic/v0.1/events/stream?roomId=lobby&agentId=${AGENT}`, {
          headers: bearer(),
          signal: controller.signal,
        });
      };
      for (let i = 0; i < 4; i++) expect((await open()).status).toBe(200);
      const refused = await open();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(await refused.json()).toMatchObject({
        status: "error",
        error: { code: "rate_limited", retryable: true, details: { reason: "too_many_per_agent", limit: 4 } },
      });
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });

  it("a burst of 100 protocol pings is answered and the socket stays open", async () => {
    const raw = await RawWebSocket.open(port());
    try {
      raw.send(0x9, "", 100);
      await raw.until(() => raw.frames().filter((f) => f.opcode === 0xa).length >= 60, 10_000);
      await holdsFor("the socket stays open", () => !raw.ended, 500);
      expect(raw.closeCode()).toBeUndefined();
    } finally {
      raw.destroy();
    }
  });

  it("a name that reorders its text, or a person labelled AI, cannot join over the WebSocket", async () => {
    for (const name of ["\u202e1a tnegA", "Agent a7 · AI"]) {
      const ws = new WebSocket(`${gateway().baseUrl.replace(/^http/, "ws")}/world/ws`);
      try {
        const refusal = new Promise<Record<string, unknown>>((resolve) =>
          ws.on("message", (data) => {
            const frame = JSON.parse(String(data)) as Record<string, unknown>;
            if (frame.type === "error" || frame.type === "welcome") resolve(frame);
          }),
        );
        await new Promise((resolve) => ws.once("open", resolve));
        ws.send(JSON.stringify({ type: "join", name }));
        expect(await refusal, name).toMatchObject({ type: "error", code: "bad_request", for: "join" });
      } finally {
        ws.terminate();
      }
    }
  });
});
