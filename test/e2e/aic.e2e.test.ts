// AIC v0.1 over HTTP through the real gateway: join, observe, moveTo (idempotent), pollEvents
// (long-poll), auth and framing — every answer checked against the generated schema and the oracle.
import { describe, expect, it } from "vitest";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { until } from "../support/wait.ts";
import { gateway, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_helper";

function call(path: string, body: unknown, token?: string) {
  const gw = gateway();
  return fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token ?? gw.agents[AGENT]!.token}`,
      "x-request-id": `e2e-${path}`,
    },
    body: JSON.stringify(body),
  });
}

leaveWhenDone(AGENT);

describe("AIC v0.1 through the real gateway", () => {
  it("join, observe, moveTo (replay identical), pollEvents long-poll sees the agent's events", async () => {
    const joined = await call("join", { agentId: AGENT, roomId: "lobby" });
    expect(joined.status).toBe(200);
    const joinJson = await joined.json();
    expect(checkResponse("JoinResponseData", joinJson, { oracle: false })).toEqual([]);
    // A second join (e.g. the tools already joined this agent) must not break the flow.
    const cursor: string = joinJson.status === "ok" ? joinJson.data.cursor : "c_0";

    const observed = await call("observe", { agentId: AGENT, roomId: "lobby", radius: 400, detail: "full" });
    expect(observed.status).toBe(200);
    expect(observed.headers.get("x-request-id")).toBe("e2e-observe");
    const observeJson = await observed.json();
    expect(checkResponse("ObserveResponseData", observeJson)).toEqual([]);
    expect(observeJson).toMatchObject({
      status: "ok",
      data: { self: { id: `agt_${AGENT}` }, room: { roomId: "lobby" } },
    });

    const self = observeJson.data.self.tile as { tx: number; ty: number };
    // A free neighbouring tile, read from the same map file the server loaded.
    const map = (await (await fetch(`${gateway().baseUrl}/world/maps/lobby.json`)).json()) as {
      width: number;
      layers: { name: string; data?: number[] }[];
    };
    const collision = map.layers.find((l) => l.name === "collision")!.data!;
    const dest = [
      { tx: self.tx, ty: self.ty - 1 },
      { tx: self.tx + 1, ty: self.ty },
      { tx: self.tx - 1, ty: self.ty },
      { tx: self.tx, ty: self.ty + 1 },
    ].find((t) => collision[t.ty * map.width + t.tx] === 0)!;
    const move = { agentId: AGENT, roomId: "lobby", txId: `tx_e2e_${Date.now()}`, dest };
    const moved = await call("moveTo", move);
    expect(moved.status).toBe(200);
    const movedText = await moved.text();
    expect(checkResponse("MoveToResponseData", JSON.parse(movedText))).toEqual([]);
    expect(await (await call("moveTo", move)).text()).toBe(movedText);

    const polled = await call("pollEvents", {
      agentId: AGENT,
      roomId: "lobby",
      sinceCursor: cursor,
      limit: 50,
      waitMs: 2000,
    });
    expect(polled.status).toBe(200);
    const pollJson = await polled.json();
    expect(checkResponse("PollEventsResponseData", pollJson)).toEqual([]);
    expect(pollJson.status).toBe("ok");
    const events = pollJson.data.events as { type: string; payload: { entityId?: string } }[];
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "presence.join",
        payload: expect.objectContaining({ entityId: `agt_${AGENT}` }),
      }),
    );

    // The move really happened: observe shows the agent on the destination tile.
    // Observe is limited to 2/s per agent: looked at a little slower.
    await until(
      "the agent on the destination tile",
      async () => {
        const again = await (
          await call("observe", { agentId: AGENT, roomId: "lobby", radius: 10, detail: "lite" })
        ).json();
        const tile = again.data?.self?.tile;
        return tile?.tx === move.dest.tx && tile?.ty === move.dest.ty;
      },
      { timeoutMs: 10_000, everyMs: 600 },
    );
  });

  it("auth and framing through the gateway: 401, 403, 400, 404, openapi.json", async () => {
    const gw = gateway();
    expect(
      (await call("observe", { agentId: AGENT, roomId: "lobby", radius: 10, detail: "lite" }, "wrong"))
        .status,
    ).toBe(401);
    const other = gw.agents.agent_other?.token;
    if (other) {
      expect(
        (await call("observe", { agentId: AGENT, roomId: "lobby", radius: 10, detail: "lite" }, other))
          .status,
      ).toBe(403);
    }
    const bad = await call("observe", { agentId: AGENT, roomId: "lobby", radius: 0, detail: "full" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ status: "error", error: { code: "bad_request" } });
    expect((await call("nope", {})).status).toBe(404);
    const doc = await fetch(`${gw.baseUrl}/aic/v0.1/openapi.json`);
    expect(doc.status).toBe(200);
    expect((await doc.json()).openapi).toBe("3.1.0");
  });
});
