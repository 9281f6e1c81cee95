// World signals through the real gateway: an HTTP agent walks to the reading corner and speaks
// there; its heartbeat names the region and counts the activity, the ocw_status tool shows every
// room's signals, and the unauthenticated statuses show none. Other files share this gateway, so
// counts are checked as lower bounds where others could add to them.
import { describe, expect, it } from "vitest";
import { type HeartbeatResponse, RoomSignals, type RoomSignalsT } from "../../src/aic/schemas.ts";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import { until } from "../support/wait.ts";
import { gateway, invokeTool, leaveWhenDone } from "./fixtures.ts";

const AGENT = "agent_signals";
const ROOM = "lobby";

async function call(path: string, body: unknown) {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents[AGENT]!.token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { status: string; data: HeartbeatResponse } };
}

leaveWhenDone(AGENT);

describe("world signals through the gateway", () => {
  it("heartbeat over HTTP names the agent's region and counts what happened there; ocw_status shows every room", async () => {
    expect((await call("join", { agentId: AGENT, roomId: ROOM })).status).toBe(200);
    const walk = await call("moveTo", {
      agentId: AGENT,
      roomId: ROOM,
      txId: "tx_e2e_signals_walk",
      dest: { tx: 8, ty: 27 },
    });
    expect(walk.json).toMatchObject({ status: "ok", data: { result: "accepted" } });
    let beat = await call("heartbeat", { agentId: AGENT, roomId: ROOM });
    await until(
      "the agent standing in the reading corner",
      async () => {
        if (beat.json.data.self.place?.id === "reading_corner" && !beat.json.data.self.moving) return true;
        beat = await call("heartbeat", {
          agentId: AGENT,
          roomId: ROOM,
          contextToken: beat.json.data.contextToken,
        });
        return false;
      },
      { timeoutMs: 90_000, everyMs: 1000 },
    );
    const said = await call("chatSend", {
      agentId: AGENT,
      roomId: ROOM,
      txId: "tx_e2e_signals_chat",
      channel: "proximity",
      message: "quiet in the reading corner",
    });
    expect(said.json).toMatchObject({ status: "ok" });

    const after = await call("heartbeat", {
      agentId: AGENT,
      roomId: ROOM,
      contextToken: beat.json.data.contextToken,
    });
    expect(after.status).toBe(200);
    expect(checkResponse("HeartbeatResponseData", after.json, { oracle: false })).toEqual([]);
    expect(after.json.data.self.place?.id).toBe("reading_corner");
    const here = after.json.data.signals?.reading_corner;
    expect(Object.keys(after.json.data.signals ?? {})[0]).toBe("reading_corner"); // its own region first
    expect(here?.chat ?? 0).toBeGreaterThanOrEqual(1);
    expect(here?.arrive ?? 0).toBeGreaterThanOrEqual(1);

    // The fuller view: ocw_status for an agent of this gateway.
    const status = await invokeTool("ocw_status", {}, { agentId: "main" });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    const signals = status.body.result!.details.signals as RoomSignalsT[];
    expect(signals.map((s) => s.roomId).sort()).toEqual(["garden", "lobby", "town"]);
    for (const room of signals) expect(RoomSignals.parse(room)).toEqual(room);
    const lobby = signals.find((s) => s.roomId === ROOM)!;
    expect(lobby.windowSec).toBe(60);
    const corner = lobby.regions.find((r) => r.id === "reading_corner")!;
    expect(corner.name).toBe("Reading Corner");
    expect(corner.counts.chat).toBeGreaterThanOrEqual(1);
    expect(lobby.room.chat).toBeGreaterThanOrEqual(corner.counts.chat);
    expect(status.body.result!.content[0]!.text).toMatch(/- reading_corner: .*\d+ chat.* \(Reading Corner\)/);

    // The unauthenticated statuses leave activity out.
    const gw = gateway();
    for (const path of ["/aic/v0.1/status", "/world/api/status"]) {
      const body = await (await fetch(`${gw.baseUrl}${path}`)).text();
      expect(body, path).not.toContain("reading_corner");
      expect(body, path).not.toContain('"signals"');
    }
  });
});
