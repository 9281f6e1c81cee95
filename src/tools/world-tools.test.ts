// The ocw_* tools as a model meets them (issues #25, #30): what each call acts as and which
// transaction it is, what a rate limit answers, which suggestions an agent is offered, which tools
// stay direct in Tool Search mode. A real world behind the in-process AIC service, ticking.
import { afterEach, describe, expect, it } from "vitest";
import { createTestEnv, type TestEnv } from "../aic/testing/local-world.ts";
import { ALL_TOOLS, resolveConfig } from "../config/config.ts";
import { registerWorldTools } from "./register-tools.ts";
import type { AgentToolLike, ToolResult } from "./tool-kit.ts";
import { turnBindings } from "./turn-binding.ts";

interface ToolContext {
  agentId?: string;
  sessionKey?: string;
  toolBindings?: Record<string, unknown>;
}

let env: TestEnv | undefined;

afterEach(() => {
  env?.runtime.stop();
  env = undefined;
});

/** The registered tools of a plugin with `pluginConfig`, over a fresh ticking world. */
async function toolsFor(pluginConfig: Record<string, unknown>, rateLimits?: Record<string, unknown>) {
  env = await createTestEnv({
    agents: (id) => ({ name: id }),
    ...(rateLimits ? { rateLimits } : {}),
  });
  env.runtime.start();
  const service = env.service;
  const config = resolveConfig(pluginConfig);
  const factories = new Map<string, (ctx: ToolContext) => AgentToolLike>();
  registerWorldTools(
    {
      registerTool(factory: unknown, opts?: { name?: string }) {
        factories.set(opts!.name!, factory as (ctx: ToolContext) => AgentToolLike);
      },
    } as never,
    config,
    { aic: () => service, status: () => ({ running: true, defaultRoomId: "lobby", rooms: [] }) },
  );
  return (name: string, ctx: ToolContext) => factories.get(name)!(ctx);
}

const text = (result: ToolResult) => result.content[0]!.text;

describe("tools as models see them", () => {
  it("the tools that tell about the world are sent directly in Tool Search mode, the actions are not", async () => {
    const tool = await toolsFor({});
    const direct = ALL_TOOLS.filter((name) => tool(name, { agentId: "a" }).catalogMode === "direct-only");
    expect(direct).toEqual([
      "ocw_status",
      "ocw_observe",
      "ocw_poll_events",
      "ocw_chat_observe",
      "ocw_heartbeat",
    ]);
  });

  it("ocw_observe lists the caller itself by default, as AIC does (#30)", async () => {
    const tool = await toolsFor({});
    const seen = await tool("ocw_observe", { agentId: "looker" }).execute("c1", { radius: 64 });
    const nearby = (seen.details as { nearby: { entity: { id: string } }[] }).nearby;
    expect(nearby.map((n) => n.entity.id)).toContain("agt_looker");
    const without = await tool("ocw_observe", { agentId: "looker" }).execute("c2", {
      radius: 64,
      includeSelf: false,
    });
    const others = (without.details as { nearby: { entity: { id: string } }[] }).nearby;
    expect(others.map((n) => n.entity.id)).not.toContain("agt_looker");
  });

  it("a txId is the session's call: the same call id in another session is a new message (#30)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send"] } });
    const say = (sessionKey: string) =>
      tool("ocw_chat_send", { agentId: "talker", sessionKey }).execute("call_1", {
        message: `hello from ${sessionKey}`,
        channel: "global",
      });
    await say("s1");
    await say("s1"); // a retry: replayed
    await say("s2"); // another conversation that numbers its calls the same way
    const heard = env!.world.chatFor("agt_talker", "lobby", 0).map((m) => m.message);
    expect(heard).toEqual(["hello from s1", "hello from s2"]);
  });

  it("a model reusing call ids (call_0 in every response) is heard every turn, and a retry applies once (#41)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send"] } });
    const inTurn = (turnId: string) => ({
      agentId: "echo",
      sessionKey: "agent:echo:openclawworld",
      toolBindings: turnBindings({ turnId, replyChannel: "proximity" }),
    });
    const say = (turnId: string, message: string) =>
      tool("ocw_chat_send", inTurn(turnId)).execute("call_0", { message, channel: "global" });
    await say("run-1", "hello");
    await say("run-1", "hello"); // the same call again in its turn: a retry, replayed
    await say("run-1", "and more"); // the same id for another call in the same turn
    await say("run-2", "hello"); // the next turn, the same id and words
    const heard = env!.world.chatFor("agt_echo", "lobby", 0).map((m) => m.message);
    expect(heard).toEqual(["hello", "and more", "hello"]);
  });

  it("in a resident's turn every tool it is given is sent directly, and chat goes where it is heard (#41)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send"] } });
    const ctx = {
      agentId: "keeper",
      toolBindings: turnBindings({ turnId: "run-1", replyChannel: "global" }),
    };
    expect(tool("ocw_chat_send", ctx).catalogMode).toBe("direct-only");
    expect(tool("ocw_chat_send", { agentId: "keeper" }).catalogMode).toBeUndefined();
    const said = await tool("ocw_chat_send", ctx).execute("c1", { message: "Over here!" });
    expect(text(said)).toBe("You said (global): Over here!");
    const near = await tool("ocw_chat_send", ctx).execute("c2", { message: "psst", channel: "proximity" });
    expect(text(near)).toBe("You said (proximity): psst");
  });

  it("a rate limit is a result the model can read, not a failure (#30)", async () => {
    const tool = await toolsFor(
      { tools: { enabled: ["ocw_chat_send"] } },
      { classes: { chatSend: { perSec: 0.01, burst: 1 } } },
    );
    const say = (callId: string) =>
      tool("ocw_chat_send", { agentId: "fast" }).execute(callId, { message: "again", channel: "global" });
    await say("c1");
    const limited = await say("c2");
    expect(text(limited)).toMatch(/^Not done: too many chatSend calls just now\. .*try again in \d+ s\.$/);
    expect(limited.details).toMatchObject({ rateLimited: { rateClass: "chatSend" } });
    expect(env!.world.chatFor("agt_fast", "lobby", 0)).toHaveLength(1);
  });

  it("heartbeat suggestions offer only what the agent's policy allows (#25)", async () => {
    const tool = await toolsFor({
      tools: { perAgent: { free: { enabled: ["ocw_move_to", "ocw_interact", "ocw_chat_send"] } } },
    });
    const kinds = async (agentId: string) => {
      const beat = await tool("ocw_heartbeat", { agentId }).execute(`c_${agentId}`, {});
      const suggestions = (beat.details as { suggestions: { action: { kind: string } }[] }).suggestions;
      return { kinds: suggestions.map((s) => s.action.kind), text: text(beat) };
    };
    const free = await kinds("free");
    // The lobby's spawn has objects around it: an agent that may act is offered something.
    expect(free.kinds.length).toBeGreaterThan(0);
    const bound = await kinds("bound");
    expect(bound.kinds).toEqual([]);
    expect(bound.text).not.toContain("You could");
  });

  it("a first heartbeat carries its action: the chat is said in the same call (#25)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send"] } });
    const beat = await tool("ocw_heartbeat", { agentId: "newcomer" }).execute("c1", {
      action: JSON.stringify({ kind: "chatSend", message: "hi all", channel: "global" }),
    });
    expect(text(beat)).toContain("Your action: ");
    expect(text(beat)).not.toMatch(/tx_|chatMessageId|NOT applied/);
    expect(env!.world.chatFor("agt_newcomer", "lobby", 0).map((m) => m.message)).toEqual(["hi all"]);
  });

  it("a heartbeat's action carries a guard: refused while stale, nothing said (#30)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send"] } });
    const beat = await tool("ocw_heartbeat", { agentId: "careful" }).execute("c1", {
      action: {
        kind: "chatSend",
        message: "the door is open!",
        expect: { objectState: { objectId: "obj_door_meeting", field: "open", equals: true } },
      },
    });
    expect(text(beat)).toMatch(/Your action failed: conflict/);
    expect(env!.world.chatFor("agt_careful", "lobby", 0)).toEqual([]);
  });

  it("the standalone acting tools carry the same guards: stale refuses and changes nothing, fresh acts (#30)", async () => {
    const tool = await toolsFor({ tools: { enabled: ["ocw_chat_send", "ocw_move_to", "ocw_interact"] } });
    const me = { agentId: "careful" };
    const doorOpen = { objectState: { objectId: "obj_door_meeting", field: "open", equals: true } };
    await expect(
      tool("ocw_chat_send", me).execute("c1", { message: "open!", channel: "global", expect: doorOpen }),
    ).rejects.toMatchObject({ code: "conflict", details: { guard: { kind: "object_state_is" } } });
    await expect(
      tool("ocw_interact", me).execute("c2", {
        targetId: "obj_door_meeting",
        action: "close",
        expect: doorOpen,
      }),
    ).rejects.toMatchObject({ code: "conflict" });
    // Snake_case, a number as a string: coerced as ocw_heartbeat's guards are.
    const farFromNobody = { entity_near: { entity_id: "agt_nobody", within_tiles: "2" } };
    await expect(
      tool("ocw_move_to", me).execute("c3", { tx: 3, ty: 3, expect: farFromNobody }),
    ).rejects.toMatchObject({
      code: "conflict",
      details: { guard: { kind: "entity_near", withinTiles: 2 } },
    });
    expect(env!.world.chatFor("agt_careful", "lobby", 0)).toEqual([]);
    expect(env!.world.getEntity("agt_careful")!.speed).toBe(0);
    const seen = await tool("ocw_observe", me).execute("c4", { radius: 64 });
    const view = (seen.details as { self: { meta: { view: string } } }).self.meta.view;
    expect(text(seen)).toContain(`View ${view}`);
    const said = await tool("ocw_chat_send", me).execute("c5", {
      message: "nothing changed",
      channel: "global",
      expect: JSON.stringify({ view }),
    });
    expect(text(said)).toContain("You said");
    expect(env!.world.chatFor("agt_careful", "lobby", 0).map((m) => m.message)).toEqual(["nothing changed"]);
  });

  it("a gateway agent never takes the body of an AIC agent of the same id (#25)", async () => {
    const tool = await toolsFor({ agents: { main: { token: "t_0123456789abcdef0123" } } });
    await expect(tool("ocw_observe", { agentId: "main" }).execute("c1", {})).rejects.toThrow(
      /belongs to another agent/,
    );
    expect(env!.world.getEntity("agt_main")).toBeUndefined();
    // Other gateway agents are unaffected.
    await expect(tool("ocw_observe", { agentId: "other" }).execute("c2", {})).resolves.toBeTruthy();
  });
});
