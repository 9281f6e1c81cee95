// A place closed by its hours, as an agent meets it through the contract: its place's hours in the
// heartbeat, shown out at closing and told among its events, the room's closed places in heartbeat
// and observe, and a moveTo into it refused in words, the answer still the PRD's.
import { describe, expect, it } from "vitest";
import { formatHeartbeat } from "../tools/render.ts";
import type { HeartbeatResponse } from "./schemas.ts";
import { createTestEnv, lobbyDefinition, type TestEnv } from "./testing/local-world.ts";
import { checkResponse } from "./testing/oracle.ts";

const A = "agent_helper";
const room = "lobby";
const HALL = { tx: 6, ty: 27 };
const HOURS = { opens: "09:00", closes: "17:00" };

/** The bundled lobby with its Reading Corner open 09:00-17:00, half a minute before closing. */
async function hallEnv(): Promise<TestEnv> {
  const def = await lobbyDefinition();
  const lobby = def.rooms.lobby!;
  const regions = lobby.regions.map((r) => (r.id === "reading_corner" ? { ...r, hours: HOURS } : r));
  return createTestEnv({
    patch: {
      epochMs: Date.parse("2026-02-10T16:59:30Z"),
      rooms: { ...def.rooms, lobby: { ...lobby, regions } },
    },
  });
}

async function beat(env: TestEnv): Promise<HeartbeatResponse> {
  const answer = await env.service.call("heartbeat", A, { agentId: A, roomId: room });
  expect(checkResponse("HeartbeatResponseData", answer, { oracle: false })).toEqual([]);
  if (answer.status !== "ok") throw new Error(JSON.stringify(answer));
  return answer.data as HeartbeatResponse;
}

const tileOf = (env: TestEnv) => env.world.getEntity("agt_agent_helper")!.tile;

describe("a place closed by its hours, through the contract", () => {
  it("an agent inside is shown out and told at closing, reads what is closed, and is refused entry", async () => {
    const env = await hallEnv();
    const joined = await env.tick(env.service.call("join", A, { agentId: A, roomId: room }));
    const cursor = (joined as { data: { cursor: string } }).data.cursor;
    expect((await beat(env)).closedPlaces).toBeUndefined();
    const walking = await env.tick(
      env.service.call("moveTo", A, { agentId: A, roomId: room, txId: "tx_hall_in_0001", dest: HALL }),
    );
    expect(walking).toMatchObject({ status: "ok", data: { result: "accepted" } });
    for (let i = 0; i < 400 && (tileOf(env).tx !== HALL.tx || tileOf(env).ty !== HALL.ty); i++)
      env.runtime.stepNow();
    expect((await beat(env)).self.place).toEqual({
      id: "reading_corner",
      name: "Reading Corner",
      hours: HOURS,
    });

    while (env.world.serverTsMs < Date.parse("2026-02-10T17:00:00Z")) env.runtime.stepNow();
    const outside = tileOf(env);
    expect(env.world.regionsAt(room, outside).map((r) => r.id)).not.toContain("reading_corner");
    const polled = await env.service.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: cursor,
      limit: 200,
    });
    const told = (
      polled as { data: { events: { type: string; payload: { message?: string } }[] } }
    ).data.events
      .filter((e) => e.type === "chat.message")
      .map((e) => e.payload.message);
    expect(told).toContain("Reading Corner closes at 17:00: you were shown out. It opens again at 09:00.");

    const after = await beat(env);
    expect(after.closedPlaces).toEqual([{ id: "reading_corner", name: "Reading Corner", opensAt: "09:00" }]);
    expect(formatHeartbeat({ ...after, self: { ...after.self, roomId: room } })).toContain(
      "Closed now: Reading Corner (opens 09:00).",
    );
    const around = { agentId: A, roomId: room, radius: 64, detail: "lite" } as const;
    const observed = await env.service.call("observe", A, around);
    expect(checkResponse("ObserveResponseData", observed)).toEqual([]);
    expect((observed as { data: { self: { meta: unknown } } }).data.self.meta).toMatchObject({
      closedPlaces: [{ id: "reading_corner", name: "Reading Corner", opensAt: "09:00" }],
    });

    const refused = await env.tick(
      env.service.call("moveTo", A, { agentId: A, roomId: room, txId: "tx_hall_again_0001", dest: HALL }),
    );
    expect(checkResponse("MoveToResponseData", refused)).toEqual([]);
    expect(refused).toMatchObject({
      status: "error",
      error: {
        code: "collision_blocked",
        message: "Reading Corner is closed; it opens at 09:00.",
        details: { placeId: "reading_corner", opensAt: "09:00" },
      },
    });
    expect(tileOf(env)).toEqual(outside);
  });
});
