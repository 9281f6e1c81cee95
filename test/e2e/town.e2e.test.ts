// Issue #26 through the agents' doors of the real gateway: the town's places and its new object
// types (notice board, seats, private room) for an HTTP agent (AIC v0.1) and a tool agent
// (POST /tools/invoke), and the operator taking a note down (the admin route). The browser door is
// web-town.e2e.test.ts. Each action twice in a row where it can be.
import { afterAll, describe, expect, it, vi } from "vitest";
import { checkResponse } from "../../src/aic/testing/oracle.ts";
import {
  type AicAnswer,
  admin,
  aicCall,
  boardNotes,
  invokeTool,
  leaveWorld,
  removeNotes,
} from "./fixtures.ts";

const A = "agent_town";
const B = "agent_town_peer";
const ROOM = "town";
type Answer = AicAnswer;
const call = (path: string, agentId: string, body: Record<string, unknown>) =>
  aicCall(ROOM, path, agentId, body);

let txn = 0;
const tx = (what: string) => `tx_town_${what}_${Date.now()}_${txn++}`;

/** Walks an HTTP agent to a tile and waits until it stands there (observing: the heartbeat's rate
 * class is 1/s), then answers its heartbeat there. */
async function walk(agentId: string, tx_: number, ty: number): Promise<Answer> {
  const moved = await call("moveTo", agentId, { txId: tx("walk"), dest: { tx: tx_, ty } });
  expect(moved.status, JSON.stringify(moved)).toBe("ok");
  await vi.waitFor(
    async () => {
      const self = (await call("observe", agentId, { radius: 1, detail: "lite" })).data?.self;
      if (!(self && self.tile.tx === tx_ && self.tile.ty === ty && self.speed === 0))
        throw new Error(`${agentId} never reached (${tx_}, ${ty}): ${JSON.stringify(self)}`);
    },
    { timeout: 60_000, interval: 700 },
  );
  return call("heartbeat", agentId, {});
}

const text = (answer: Awaited<ReturnType<typeof invokeTool>>) => answer.body.result?.content[0]?.text ?? "";

const TOWNIE = { agentId: "townie" };
/** A quiet tile of the town, more than the chat radius (6) from every spot the other files' people
 * stand on (the square's board and fountain, the café, the park, the market, the council room, the
 * library and the gate), where the tool agent goes at the end: no tool lets a gateway agent leave. */
const QUIET = { tx: 38, ty: 15 };

/** Walks the tool agent to a tile and resolves with its observation there (observe is limited to
 * 2 a second, so it looks every half second). */
async function toolWalk(tx_: number, ty: number, radius = 4, detail?: "full"): Promise<string> {
  expect((await invokeTool("ocw_move_to", { tx: tx_, ty }, TOWNIE)).status).toBe(200);
  return vi.waitFor(
    async () => {
      const observed = text(
        await invokeTool("ocw_observe", { radius, ...(detail ? { detail } : {}) }, TOWNIE),
      );
      if (!observed.includes(`at (${tx_}, ${ty})`))
        throw new Error(`townie not at (${tx_}, ${ty}): ${observed}`);
      return observed;
    },
    { timeout: 60_000, interval: 500 },
  );
}

// The shared world after this file as before it: the HTTP agents leave the town, their note leaves
// the board (the tool agent's is taken down by the operator's test), and the tool agent walks off the
// square (web-town's player counts who would hear her there).
afterAll(async () => {
  for (const id of [A, B]) await leaveWorld(id, ROOM);
  await removeNotes("obj_board_square", (n) => n.text.startsWith("HTTP agents welcome"));
  await toolWalk(QUIET.tx, QUIET.ty);
});

describe("the town through AIC over HTTP", () => {
  it("observe and heartbeat name the place; notes are posted with params and read back; a bench is sat on", async () => {
    for (const id of [A, B]) expect((await call("join", id, {})).status).toBe("ok");
    const arrived = await walk(A, 23, 17);
    expect(checkResponse("HeartbeatResponseData", arrived, { oracle: false })).toEqual([]);
    expect(arrived.data.self.place).toEqual({ id: "town_square", name: "Town Square" });
    const seen = await call("observe", A, { radius: 96, detail: "full" });
    expect(checkResponse("ObserveResponseData", seen)).toEqual([]);
    expect(seen.data.self.meta.place).toEqual({ id: "town_square", name: "Town Square" });
    const board = seen.data.nearby.find(
      (n: { entity: { id: string } }) => n.entity.id === "obj_board_square",
    );
    expect(board.affords.map((a: { action: string }) => a.action)).toEqual(["read", "post"]);
    expect(board.affords[1].paramsSchema.properties.text.maxLength).toBe(200);

    const post = (message: string) =>
      call("interact", A, {
        txId: tx("post"),
        targetId: "obj_board_square",
        action: "post",
        params: { text: message },
      });
    const first = await post("HTTP agents welcome: ask me anything");
    expect(checkResponse("InteractResponseData", first)).toEqual([]);
    expect(first.data.outcome).toEqual({ type: "ok", message: "Your note is on the board." });
    // The second within the interval is refused (bounded in time), then bad input is refused clearly.
    expect((await post("and again")).data.outcome.type).toBe("no_effect");
    expect((await post("x".repeat(201))).data.outcome).toMatchObject({ type: "invalid_action" });
    const read = await call("interact", A, {
      txId: tx("read"),
      targetId: "obj_board_square",
      action: "read",
    });
    expect(read.data.outcome.message).toContain("Town Bot: HTTP agents welcome");

    // A bench by the fountain: sit (twice is "already"), then stand.
    await walk(A, 26, 17);
    const bench = (action: string) =>
      call("interact", A, { txId: tx(action), targetId: "obj_square_bench_n1", action });
    expect((await bench("sit")).data.outcome).toEqual({ type: "ok", message: "You sit on the bench." });
    expect((await bench("sit")).data.outcome.type).toBe("no_effect");
    const sitting = await call("observe", A, { radius: 10, detail: "full" });
    const seat = sitting.data.nearby.find(
      (n: { entity: { id: string } }) => n.entity.id === "obj_square_bench_n1",
    );
    expect(seat.object.state.occupant).toBe(`agt_${A}`);
    expect(seat.affords).toEqual([{ action: "stand", label: "Stand up" }]);
    expect((await bench("stand")).data.outcome).toEqual({ type: "ok", message: "You stand up." });
  });

  it("in the private council room the agent hears and is heard only inside, as the heartbeat says", async () => {
    const inside = await walk(A, 44, 30);
    expect(inside.data.self.place).toEqual({ id: "council_room", name: "Council Room", private: true });
    await walk(B, 44, 25); // outside, within the chat radius
    for (const n of [1, 2]) {
      const said = await call("chatSend", A, {
        txId: tx("secret"),
        channel: n === 1 ? "proximity" : "global",
        message: `secret ${n}`,
      });
      expect(said.status).toBe("ok");
      const heardOutside = await call("chatObserve", B, { windowSec: 60 });
      expect(heardOutside.data.messages.map((m: { message: string }) => m.message)).not.toContain(
        `secret ${n}`,
      );
      const heardInside = await call("chatObserve", A, { windowSec: 60 });
      expect(heardInside.data.messages.map((m: { message: string }) => m.message)).toContain(`secret ${n}`);
    }
    const outside = await call("chatSend", B, {
      txId: tx("outside"),
      channel: "proximity",
      message: "hello in there?",
    });
    expect(outside.status).toBe("ok");
    const heard = await call("chatObserve", A, { windowSec: 60 });
    expect(heard.data.messages.map((m: { message: string }) => m.message)).not.toContain("hello in there?");
  });
});

describe("the town through the tools (POST /tools/invoke)", () => {
  it("a tool agent walks onto the lobby's west portal to the town, is told where it is, posts a note and sits", async () => {
    const agent = TOWNIE;
    await invokeTool("ocw_observe", { radius: 4 }, agent); // joins the lobby
    expect((await invokeTool("ocw_move_to", { tx: 1, ty: 16 }, agent)).status).toBe(200);
    const arrived = await vi.waitFor(
      async () => {
        const observed = text(await invokeTool("ocw_observe", { radius: 4 }, agent));
        if (!observed.includes("in room town")) throw new Error(`never reached the town: ${observed}`);
        return observed;
      },
      { timeout: 60_000, interval: 500 },
    );
    expect(arrived).toContain("in the Town Gate");
    const observed = await toolWalk(22, 17, 96, "full");
    expect(observed).toContain("in the Town Square");
    expect(observed).toMatch(/Town notice board|board_square/);
    const posted = await invokeTool(
      "ocw_interact",
      { targetId: "obj_board_square", action: "post", params: { text: "Tools can post too." } },
      agent,
    );
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expect(text(posted)).toBe("post obj_board_square: ok — Your note is on the board.");
    const read = await invokeTool("ocw_interact", { targetId: "obj_board_square", action: "read" }, agent);
    expect(text(read)).toContain("townie: Tools can post too.");
    const beat = await invokeTool("ocw_heartbeat", {}, { agentId: "main" });
    expect(beat.status).toBe(200);
    const again = await invokeTool("ocw_heartbeat", {}, agent);
    expect(text(again)).toContain("in the Town Square");
    await toolWalk(26, 17);
    for (const action of ["sit", "stand"]) {
      const answer = await invokeTool("ocw_interact", { targetId: "obj_square_bench_n1", action }, agent);
      expect(text(answer), action).toMatch(/: ok — You (sit on the bench|stand up)\./);
    }
  });
});

describe("the operator moderates the notice board", () => {
  it("lists the notes and takes one down (only with the operator token); agents then no longer read it", async () => {
    expect([401, 403]).toContain((await admin("/notes", {}, "not-the-token")).status);
    const board = await boardNotes("obj_board_square");
    const note = board.notes.find((n) => n.text === "Tools can post too.")!;
    expect(note).toBeDefined();
    const remove = () =>
      admin("/notes/remove", {
        method: "POST",
        body: JSON.stringify({ objectId: board.objectId, noteId: note.id }),
      });
    const removed = await remove();
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({
      status: "ok",
      data: { objectId: board.objectId, noteId: note.id, removed: true },
    });
    expect((await remove()).status).toBe(404); // the second time: gone already
    const read = await call("interact", A, {
      txId: tx("reread"),
      targetId: "obj_board_square",
      action: "read",
    });
    expect(read.data.outcome.message).not.toContain("Tools can post too.");
  });
});
