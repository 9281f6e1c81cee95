// Wake targets through the real gateway (issue #43): an AIC agent that lives elsewhere is woken by a
// signed webhook when a person's WebSocket calls its name. The receiver here plays that agent: it
// checks the signature (the documented check, verifyWake), reads the words from the wake's cursor
// over AIC, and answers in the world, where the person hears it. Then it fails (5xx, retried), hangs
// (timed out until the circuit opens) and recovers; a replayed or forged wake is refused.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OPERATOR_ROUTE } from "../../src/http/operator-routes.ts";
import { verifyWake } from "../../src/residents/remote/signing.ts";
import { joinPerson } from "../support/person.ts";
import { gateway, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_wake";
const NAME = "Faraway Bot";
const SECRET = randomBytes(32).toString("hex");

type Mode = "ok" | "fail" | "hang";
interface Received {
  headers: IncomingMessage["headers"];
  body: string;
  verdict: string;
}

const receiver = {
  mode: "ok" as Mode,
  /** Requests answered 500 before "fail" turns back to "ok". */
  failuresLeft: 0,
  received: [] as Received[],
  seen: new Set<string>(),
  hanging: [] as ServerResponse[],
};
let server: Server;
let receiverUrl: string;

function answer(req: IncomingMessage, res: ServerResponse) {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    if (receiver.mode === "hang") {
      receiver.received.push({ headers: req.headers, body, verdict: "hung" });
      receiver.hanging.push(res);
      return;
    }
    if (receiver.mode === "fail" && receiver.failuresLeft > 0) {
      receiver.failuresLeft -= 1;
      receiver.received.push({ headers: req.headers, body, verdict: "500" });
      res.writeHead(500).end();
      return;
    }
    const check = verifyWake(SECRET, req.headers, body, Date.now(), receiver.seen);
    receiver.received.push({ headers: req.headers, body, verdict: check.ok ? "ok" : check.reason });
    res.writeHead(check.ok ? 200 : 401).end();
  });
}

/** Re-sends a received wake as it was (a replay), or with a changed body (a forgery). */
async function resend(wake: Received, body = wake.body): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const name of ["x-openclawworld-signature", "x-openclawworld-timestamp", "x-openclawworld-delivery"])
    headers[name] = String(wake.headers[name]);
  return (await fetch(receiverUrl, { method: "POST", headers, body })).status;
}

async function operator(method: "GET" | "POST", route: string, body?: unknown) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}${OPERATOR_ROUTE}${route}`, {
    method,
    headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as { status: string; data: Record<string, unknown> };
}

async function aic(endpoint: string, body: Record<string, unknown>) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[AGENT]!.token}` },
    body: JSON.stringify({ agentId: AGENT, roomId: "lobby", ...body }),
  });
  return (await res.json()) as { status: string; data: Record<string, unknown> };
}

interface RemoteStatus {
  residents: { agentId: string; state: string }[];
  deliveries: {
    targets: { circuit: string; consecutiveFailures: number }[];
    recent: { deliveryId: string; agentId: string; outcome: string; attempts: number }[];
  };
}
const remoteStatus = async () => (await operator("GET", "/status")).data.remoteResidents as RemoteStatus;

let tx = 0;
/** The receiver as the agent: reads what woke it from the wake's cursor, and answers in the world. */
async function answerAsAgent(wake: Received, reply: string) {
  const payload = JSON.parse(wake.body) as { cursor: string };
  const page = await aic("pollEvents", { sinceCursor: payload.cursor });
  expect(page.status).toBe("ok");
  tx += 1;
  const sent = await aic("chatSend", {
    txId: `tx_wake_e2e_${String(tx).padStart(4, "0")}_${Date.now()}`,
    channel: "global",
    message: reply,
  });
  expect(sent.status).toBe("ok");
  return JSON.stringify(page.data.events);
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wake`;
});

afterAll(async () => {
  await operator("POST", `/wake-targets/${AGENT}/remove`).catch(() => undefined);
  for (const res of receiver.hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

leaveWhenDone(AGENT);

describe("wake targets through the real gateway (issue #43)", () => {
  it("a person calls a faraway agent by name; a signed wake with no words reaches it; its answer reaches the person", {
    timeout: 60_000,
  }, async () => {
    const set = await operator("POST", `/wake-targets/${AGENT}`, {
      target: { kind: "webhook", url: receiverUrl, secret: SECRET },
      minIntervalSec: 0,
      turnTimeoutSec: 10,
    });
    expect(set).toMatchObject({ status: "ok", data: { agentId: AGENT, target: { secret: "(set)" } } });
    expect((await aic("join", {})).status).toBe("ok");
    const wanda = await joinPerson(gateway().baseUrl, "Wanda");
    try {
      // 1. Woken, signed, no words in the wake; the words come from the world at its cursor.
      wanda.say(`${NAME}, are you there? plum-42`);
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 10_000, interval: 50 });
      const wake = receiver.received[0]!;
      expect(wake.verdict).toBe("ok");
      expect(wake.body).not.toContain("plum-42");
      expect(JSON.parse(wake.body)).toMatchObject({
        agentId: AGENT,
        reasons: ["name_said"],
        roomId: "lobby",
      });
      await vi.waitFor(async () => expect((await remoteStatus()).residents[0]!.state).toBe("thinking"), {
        timeout: 5000,
        interval: 100,
      });
      expect(await answerAsAgent(wake, "Here, from afar")).toContain("plum-42");
      await vi.waitFor(
        () => expect(wanda.heard).toContainEqual({ from: `agt_${AGENT}`, message: "Here, from afar" }),
        { timeout: 10_000, interval: 50 },
      );
      await vi.waitFor(
        async () => {
          const status = await remoteStatus();
          expect(status.residents[0]!.state).toBe("awake");
          expect(status.deliveries.recent.at(-1)).toMatchObject({ outcome: "answered", attempts: 1 });
        },
        { timeout: 5000, interval: 100 },
      );

      // 2. A replayed wake and a forged one are refused by the receiver's check.
      expect(await resend(wake)).toBe(401);
      expect(receiver.received.at(-1)!.verdict).toBe("replayed");
      expect(await resend(wake, wake.body.replace(AGENT, "agent_other"))).toBe(401);
      expect(receiver.received.at(-1)!.verdict).toBe("bad_signature");
      receiver.received.length = 0;

      // 3. Two 5xx answers: retried (same delivery id), then delivered.
      receiver.mode = "fail";
      receiver.failuresLeft = 2;
      wanda.say(`${NAME}? once more`);
      await vi.waitFor(() => expect(receiver.received.map((r) => r.verdict)).toEqual(["500", "500", "ok"]), {
        timeout: 10_000,
        interval: 50,
      });
      const ids = receiver.received.map((r) => r.headers["x-openclawworld-delivery"]);
      expect(new Set(ids).size).toBe(1);
      await answerAsAgent(receiver.received[2]!, "Got it the third time");
      await vi.waitFor(async () => expect((await remoteStatus()).residents[0]!.state).toBe("awake"), {
        timeout: 5000,
        interval: 100,
      });
      receiver.received.length = 0;

      // 4. A hanging receiver: each attempt times out, the circuit opens and status says so (the
      // failed wake's record; the circuit itself may be half open again by the time it is read, its
      // 2 s cool-down gone on a busy machine).
      receiver.mode = "hang";
      wanda.say(`${NAME}, hello?`);
      await vi.waitFor(
        async () => {
          const status = await remoteStatus();
          expect(status.deliveries.recent.at(-1)).toMatchObject({
            outcome: "failed",
            attempts: 3,
            error: expect.stringContaining("circuit opened"),
          });
          expect(["open", "half_open"]).toContain(status.deliveries.targets[0]!.circuit);
          // It cannot answer now, and the status says so (with what failed), not "awake".
          expect(status.residents[0]).toMatchObject({ state: "failing", failing: { turns: 1 } });
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(receiver.received).toHaveLength(3);
      receiver.received.length = 0;

      // 5. Recovered: after the cool-down the next wake goes through and the circuit closes.
      receiver.mode = "ok";
      await vi.waitFor(
        async () => {
          expect((await remoteStatus()).deliveries.targets[0]!.circuit).toBe("half_open");
        },
        { timeout: 10_000, interval: 100 },
      );
      wanda.say(`${NAME}, back?`);
      await vi.waitFor(() => expect(receiver.received.map((r) => r.verdict)).toEqual(["ok"]), {
        timeout: 10_000,
        interval: 50,
      });
      await answerAsAgent(receiver.received[0]!, "Back again");
      await vi.waitFor(
        async () => {
          const status = await remoteStatus();
          expect(status.deliveries.targets[0]).toMatchObject({ circuit: "closed", consecutiveFailures: 0 });
          expect(status.deliveries.recent.at(-1)).toMatchObject({ outcome: "answered" });
          expect(status.residents[0]!.state).toBe("awake"); // an answered wake ends the failing
        },
        { timeout: 5000, interval: 100 },
      );
    } finally {
      wanda.ws.close();
    }
  });
});
