// Agent tools and the opt-in / denylist policy through the real gateway's POST /tools/invoke.
import { describe, expect, it } from "vitest";
import { freeTileNear, lobbyInTheWay } from "../support/browser.ts";
import { until } from "../support/wait.ts";
import { gateway, invokeTool } from "./fixtures.ts";

type Details = Record<string, unknown>;
const details = (answer: Awaited<ReturnType<typeof invokeTool>>) => answer.body.result?.details as Details;

describe("required tools answer for any agent", () => {
  it.each([
    ["ocw_status", {}],
    ["ocw_observe", { radius: 300 }],
    ["ocw_poll_events", {}],
    ["ocw_chat_observe", { windowSec: 30 }],
    ["ocw_heartbeat", {}],
  ])("%s", async (tool, args) => {
    const answer = await invokeTool(tool, args);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.ok).toBe(true);
    expect(answer.body.result?.content[0]?.text.length).toBeGreaterThan(0);
  });
});

describe("optional tools are opt-in, and deny wins", () => {
  const calls: [string, Record<string, unknown>][] = [
    ["ocw_move_to", { tx: 20, ty: 15 }],
    ["ocw_interact", { targetId: "obj_sign_welcome", action: "read" }],
    ["ocw_chat_send", { message: "hello" }],
  ];

  it.each(calls)("%s is blocked (403 tool_call_blocked) when not enabled", async (tool, args) => {
    const answer = await invokeTool(tool, args, { agentId: "main" });
    expect(answer.status).toBe(403);
    expect(answer.body.error?.type).toBe("tool_call_blocked");
    expect(answer.body.error?.message).toContain(`${tool} is not enabled for you`);
    expect(answer.body.error?.message).not.toContain("tools.enabled");
  });

  it("runs when enabled for the agent", async () => {
    const answer = await invokeTool("ocw_chat_send", { message: "hello from mover" }, { agentId: "mover" });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(details(answer).chatMessageId).toMatch(/^msg_[A-Za-z0-9._-]{8,128}$/);
  });

  it("is blocked when denied even though enabled; ocw.chat_send in the denylist blocks ocw_chat_send", async () => {
    for (const [tool, args] of [calls[0]!, calls[2]!]) {
      const answer = await invokeTool(tool, args, { agentId: "denied" });
      expect(answer.status, tool).toBe(403);
      expect(answer.body.error?.type).toBe("tool_call_blocked");
      // The reason speaks to the agent (no config keys, no "denied" list to go and edit).
      expect(answer.body.error?.message).toContain("is not enabled for you in this world");
    }
  });

  it("enabling one optional tool does not enable the others", async () => {
    expect((await invokeTool("ocw_chat_send", { message: "hi" }, { agentId: "walker" })).status).toBe(403);
    const status = details(await invokeTool("ocw_status", {}, { agentId: "walker" }));
    expect((status.caller as { enabledOptionalTools: string[] }).enabledOptionalTools).toEqual([
      "ocw_move_to",
    ]);
  });
});

describe("an agent acts in the world", () => {
  it("moves with ocw_move_to, sees the result in ocw_observe and the events in ocw_poll_events", async () => {
    const start = details(await invokeTool("ocw_observe", { radius: 64 }, { agentId: "mover" }));
    const from = (start.self as { tile: { tx: number; ty: number } }).tile;
    // Drain up to now: the mover's cursor may be far behind (files run before may have filled the
    // lobby's log), and one poll returns a page.
    await until(
      "the mover's events drained",
      async () => {
        const page = details(await invokeTool("ocw_poll_events", { limit: 200 }, { agentId: "mover" }));
        return (page.events as unknown[]).length < 200;
      },
      { everyMs: 300 },
    );
    // Open, and not onto a sign or just below one: the mover stays in the lobby after this file.
    const target = freeTileNear(from, await lobbyInTheWay(gateway().baseUrl));
    const moved = await invokeTool("ocw_move_to", target, { agentId: "mover" });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(details(moved)).toMatchObject({ applied: true, result: "accepted" });
    // Observe is limited to 2/s per agent (PRD 12): looked at a little slower.
    await until(
      "the mover on its target",
      async () => {
        const tile = (
          details(await invokeTool("ocw_observe", { radius: 64 }, { agentId: "mover" })).self as {
            tile: typeof from;
          }
        ).tile;
        return tile.tx === target.tx && tile.ty === target.ty;
      },
      { timeoutMs: 15_000, everyMs: 600 },
    );
    await invokeTool("ocw_observe", {}, { agentId: "visitor" }); // joins the lobby: a presence.join the mover can see
    await until(
      "the visitor's presence.join in the mover's events",
      async () => {
        const polled = details(
          await invokeTool("ocw_poll_events", { waitMs: 1000, limit: 200 }, { agentId: "mover" }),
        );
        const events = polled.events as { type: string; payload: { entityId?: string } }[];
        return events.some((e) => e.type === "presence.join" && e.payload.entityId === "agt_visitor");
      },
      { everyMs: 300 },
    );
  });

  it("bad arguments give a clear 400 error naming the field", async () => {
    const answer = await invokeTool("ocw_move_to", { tx: "east", ty: 3 }, { agentId: "mover" });
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toMatch(/bad_request: invalid arguments: \/tx/);
    const wall = await invokeTool("ocw_move_to", { tx: 0, ty: 0 }, { agentId: "mover" });
    expect(wall.status).toBe(400);
    expect(wall.body.error?.message).toMatch(/collision_blocked|invalid_destination/);
  });

  it("a retried call with the same tool call id is applied once", async () => {
    const message = `exactly once ${Date.now()}`;
    const first = await invokeTool(
      "ocw_chat_send",
      { message },
      { agentId: "chatter", idempotencyKey: "retry-key-1" },
    );
    const second = await invokeTool(
      "ocw_chat_send",
      { message },
      { agentId: "chatter", idempotencyKey: "retry-key-1" },
    );
    expect(first.status).toBe(200);
    expect(details(second)).toEqual(details(first));
    const chat = details(await invokeTool("ocw_chat_observe", { windowSec: 60 }, { agentId: "chatter" }));
    const copies = (chat.messages as { message: string }[]).filter((m) => m.message === message);
    expect(copies).toHaveLength(1);
  });
});
