// Drives the real plugin entry with a small fake api: registration, the service lifecycle with
// persistence, every tool's execute, argument coercion, idempotent retries, abort and timeout.
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import plugin from "../../index.ts";
import manifest from "../../openclaw.plugin.json" with { type: "json" };
import { until } from "../../test/support/wait.ts";
import { OPTIONAL_TOOLS } from "../config/config.ts";
import type { AgentToolLike } from "../tools/tool-kit.ts";
import { activeHost } from "./singleton.ts";

type Factory = (ctx: { agentId?: string }) => AgentToolLike;
interface Registered {
  tools: Map<string, { factory: Factory; optional: boolean }>;
  hooks: Map<string, (event: { toolName: string; params?: unknown }, ctx: { agentId?: string }) => unknown>;
  services: { id: string; start(ctx: unknown): Promise<void>; stop(ctx: unknown): Promise<void> }[];
  routes: { path: string; match?: string; auth: string; handleUpgrade?: unknown }[];
  cli: { descriptors?: { name: string }[] }[];
}

function register(pluginConfig: Record<string, unknown>): Registered {
  const reg: Registered = { tools: new Map(), hooks: new Map(), services: [], routes: [], cli: [] };
  const api = {
    id: "openclawworld",
    pluginConfig,
    registrationMode: "full",
    logger: { info() {}, warn() {}, error() {}, debug() {} },
    registerTool(factory: Factory, opts: { name: string; optional?: boolean }) {
      reg.tools.set(opts.name, { factory, optional: opts.optional === true });
    },
    on(name: string, handler: Registered["hooks"] extends Map<string, infer H> ? H : never) {
      reg.hooks.set(name, handler);
    },
    registerService(service: Registered["services"][number]) {
      reg.services.push(service);
    },
    registerHttpRoute(route: Registered["routes"][number]) {
      reg.routes.push(route);
    },
    registerCli(_registrar: unknown, opts: Registered["cli"][number]) {
      reg.cli.push(opts);
    },
  };
  (plugin as unknown as { register(api: unknown): void }).register(api);
  return reg;
}

const config = {
  tools: { enabled: ["ocw_move_to", "ocw_interact", "ocw.chat_send"], timeoutMs: 1000 },
  rateLimits: { disabled: true },
  snapshot: { intervalSec: 3600 },
};
let reg: Registered;
let stateDir: string;
const serviceCtx = () => ({ stateDir, logger: { info() {}, warn() {}, error() {} } });

function tool(name: string, agentId = "tester"): AgentToolLike {
  const entry = reg.tools.get(name);
  if (!entry) throw new Error(`no tool ${name}`);
  return entry.factory({ agentId });
}

async function run(
  name: string,
  args: unknown,
  opts: { agentId?: string; callId?: string; signal?: AbortSignal } = {},
) {
  const result = await tool(name, opts.agentId).execute(
    opts.callId ?? `call-${Math.random()}`,
    args,
    opts.signal,
  );
  return result as { content: { type: string; text: string }[]; details: Record<string, unknown> };
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(os.tmpdir(), "ocw-plugin-test-"));
  reg = register(config);
  await reg.services[0]!.start(serviceCtx());
});

afterAll(async () => {
  await reg.services[0]?.stop(serviceCtx());
  await rm(stateDir, { recursive: true, force: true });
});

describe("registration", () => {
  it("registers the manifest's tools, the optional ones as optional, a policy hook, a service and five routes", () => {
    // The manifest's `contracts.tools` is the one list of tool names (the gateway loads by it).
    expect([...reg.tools.keys()].sort()).toEqual([...manifest.contracts.tools].sort());
    const optional = [...reg.tools].filter(([, t]) => t.optional).map(([n]) => n);
    expect(optional.sort()).toEqual([...OPTIONAL_TOOLS].sort());
    const metadata: Record<string, { optional?: boolean; replaySafe: boolean }> = manifest.toolMetadata;
    for (const [name, t] of reg.tools) expect(metadata[name]?.optional === true).toBe(t.optional);
    expect(reg.hooks.has("before_tool_call")).toBe(true);
    expect(reg.services.map((s) => s.id)).toEqual(["openclawworld-world"]);
    expect(reg.routes.map((r) => [r.path, r.match, r.auth])).toEqual([
      ["/aic/v0.1", "prefix", "plugin"],
      ["/world", "prefix", "plugin"],
      // The replay page: its reads check an operator link's key themselves.
      ["/openclawworld/replay", "prefix", "plugin"],
      // The follow page: its reads check the agent's own token or a follow link's key themselves.
      ["/openclawworld/follow", "prefix", "plugin"],
      // Operator save/load: only the gateway's operator token gets through.
      ["/openclawworld/admin", "prefix", "gateway"],
    ]);
    expect(typeof reg.routes[1]!.handleUpgrade).toBe("function");
    // `openclaw ocw checkpoint ...` (the CLI process reaches the operator route).
    expect(reg.cli.map((c) => c.descriptors?.map((d) => d.name))).toEqual([["ocw"]]);
  });

  it("register is free of side effects and a bad config fails the load with a clear message", () => {
    expect(() => register({ tools: { disabled: ["ocw_poll_events"] } })).toThrow(/required tool/);
    expect(() => register({ tools: { enabled: ["ocw_fly"] } })).toThrow(/unknown tool "ocw_fly"/);
  });
});

describe("tool schemas follow the OpenClaw tool-schema rules", () => {
  function walk(node: unknown, visit: (n: Record<string, unknown>, key: string) => void, key = "") {
    if (!node || typeof node !== "object") return;
    visit(node as Record<string, unknown>, key);
    const n = node as Record<string, unknown>;
    for (const [k, child] of Object.entries((n.properties as Record<string, unknown>) ?? {}))
      walk(child, visit, k);
    if (n.items) walk(n.items, visit, `${key}[]`);
  }
  it("no unions, string enums, optional not nullable, no combinators, no property named format", () => {
    for (const name of reg.tools.keys()) {
      const schema = tool(name).parameters as unknown as Record<string, unknown>;
      expect(schema.type, name).toBe("object");
      for (const k of ["anyOf", "oneOf", "allOf"])
        expect(schema[k], `${name} top-level ${k}`).toBeUndefined();
      walk(schema, (n, key) => {
        for (const k of ["anyOf", "oneOf", "allOf", "not"])
          expect(n[k], `${name}.${key} ${k}`).toBeUndefined();
        expect(Array.isArray(n.type), `${name}.${key} union type`).toBe(false);
        expect(n.nullable, `${name}.${key} nullable`).toBeUndefined();
        if (n.enum) {
          expect(n.type, `${name}.${key} enum type`).toBe("string");
          expect((n.enum as unknown[]).every((v) => typeof v === "string")).toBe(true);
        }
        expect(Object.keys((n.properties as object) ?? {}), `${name}.${key}`).not.toContain("format");
      });
    }
  });
});

describe("tools in-process", () => {
  it("ocw_status reports a running world and what the caller may use", async () => {
    const res = await run("ocw_status", {});
    expect(res.details).toMatchObject({
      running: true,
      defaultRoomId: "lobby",
      caller: { entityId: "agt_tester" },
    });
    expect((res.details.caller as { enabledOptionalTools: string[] }).enabledOptionalTools).toEqual([
      "ocw_move_to",
      "ocw_interact",
      "ocw_chat_send",
    ]);
    expect(res.content[0]!.text).toContain("is running");
  });

  it("the first ocw_observe joins the default room and sees the world", async () => {
    const res = await run("ocw_observe", { radius: 2000 }, { agentId: "obs" });
    const self = res.details.self as { id: string; roomId: string };
    expect(self).toMatchObject({ id: "agt_obs", roomId: "lobby" });
    expect((res.details.nearby as unknown[]).length).toBeGreaterThan(0);
    expect(res.content[0]!.text).toContain("You are obs (agt_obs) in room lobby");
    const status = await run("ocw_status", {}, { agentId: "obs" });
    expect(status.content[0]!.text).toMatch(/You are agt_obs in lobby at tile/);
  });

  it("ocw_poll_events sees the agent's own join, then remembers its cursor", async () => {
    const first = await run("ocw_poll_events", {}, { agentId: "poller" });
    const types = (first.details.events as { type: string; payload: { entityId?: string } }[]).map((e) => [
      e.type,
      e.payload.entityId,
    ]);
    expect(types).toContainEqual(["presence.join", "agt_poller"]);
    const second = await run("ocw_poll_events", { limit: "10" }, { agentId: "poller" });
    expect(
      (second.details.events as { payload: { entityId?: string } }[]).some(
        (e) => e.payload.entityId === "agt_poller",
      ),
    ).toBe(false);
  });

  it("accepts snake_case keys, numeric and boolean strings and JSON-encoded objects", async () => {
    const res = await run("ocw_observe", '{"radius":"300","include_self":"true","detail":"lite"}', {
      agentId: "coerce",
    });
    const nearby = res.details.nearby as { entity: { id: string } }[];
    expect(nearby.some((n) => n.entity.id === "agt_coerce")).toBe(true);
    const polled = await run("ocw_poll_events", { wait_ms: "0", limit: 5 }, { agentId: "coerce" });
    expect(Array.isArray(polled.details.events)).toBe(true);
  });

  it("bad arguments give a clear error naming the field", async () => {
    await expect(run("ocw_move_to", { tx: "east", ty: 3 })).rejects.toThrow(
      /bad_request: invalid arguments: \/tx/,
    );
    await expect(run("ocw_observe", { radius: 5000 })).rejects.toThrow(/\/radius/);
    await expect(run("ocw_chat_send", { message: "hi", teleport: true })).rejects.toThrow(/teleport/);
  });

  it("ocw_move_to walks around walls; the world reports out-of-bounds and blocked tiles", async () => {
    const observed = await run("ocw_observe", { radius: 64 }, { agentId: "walker" });
    const start = (observed.details.self as { tile: { tx: number; ty: number } }).tile;
    const world = activeHost()!.runtime.world;
    const room = world.definition.rooms.lobby!;
    let dest: { tx: number; ty: number } | undefined;
    for (let d = 3; d < 10 && !dest; d++) {
      for (const [dx, dy] of [
        [d, 0],
        [-d, 0],
        [0, d],
        [0, -d],
      ] as const) {
        const t = { tx: start.tx + dx, ty: start.ty + dy };
        if (
          t.tx > 0 &&
          t.ty > 0 &&
          t.tx < room.widthTiles &&
          t.ty < room.heightTiles &&
          !world.isBlocked("lobby", t)
        ) {
          dest = t;
          break;
        }
      }
    }
    expect(dest).toBeDefined();
    const moved = await run("ocw_move_to", { tx: String(dest!.tx), ty: dest!.ty }, { agentId: "walker" });
    expect(moved.details).toMatchObject({ applied: true, result: "accepted" });
    await expect(run("ocw_move_to", { tx: 5000, ty: 1 }, { agentId: "walker" })).rejects.toThrow(
      /invalid_destination/,
    );
    const wall = (() => {
      for (let ty = 0; ty < room.heightTiles; ty++)
        for (let tx = 0; tx < room.widthTiles; tx++)
          if (world.isBlocked("lobby", { tx, ty })) return { tx, ty };
      throw new Error("no wall");
    })();
    await expect(run("ocw_move_to", wall, { agentId: "walker" })).rejects.toThrow(/collision_blocked/);
    // The walker arrives eventually (the service ticks at 20 Hz).
    await until("the walker arrives", () => {
      const tile = world.getEntity("agt_walker")!.tile;
      return tile.tx === dest!.tx && tile.ty === dest!.ty;
    });
  });

  it("a retried tool call (same tool call id) is applied once", async () => {
    const a = await run(
      "ocw_chat_send",
      { message: "only once" },
      { agentId: "retry", callId: "call-fixed-1" },
    );
    const b = await run(
      "ocw_chat_send",
      { message: "only once" },
      { agentId: "retry", callId: "call-fixed-1" },
    );
    expect(b.details).toEqual(a.details);
    const chat = await run("ocw_chat_observe", { windowSec: 60 }, { agentId: "retry" });
    const mine = (chat.details.messages as { message: string; fromEntityId: string }[]).filter(
      (m) => m.fromEntityId === "agt_retry" && m.message === "only once",
    );
    expect(mine).toHaveLength(1);
  });

  it("ocw_interact reads a sign through the one affordance registry", async () => {
    const world = activeHost()!.runtime.world;
    const sign = world.definition.rooms.lobby!.objects.find((o) => o.objectType === "sign")!;
    await run("ocw_observe", {}, { agentId: "reader" });
    await run("ocw_move_to", { tx: sign.tile.tx, ty: sign.tile.ty + 1 }, { agentId: "reader" });
    await until("the reader stands by the sign", () => {
      const t = world.getEntity("agt_reader")!.tile;
      return Math.abs(t.tx - sign.tile.tx) + Math.abs(t.ty - sign.tile.ty) <= 1;
    });
    const res = await run(
      "ocw_interact",
      { target_id: sign.id, action: "read", params: "{}" },
      { agentId: "reader" },
    );
    expect(res.details).toMatchObject({ applied: true, outcome: { type: "ok", message: sign.props.text } });
    expect(res.content[0]!.text).toContain(String(sign.props.text));
  });

  it("ocw_move_to with targetId walks into reach of an object (the world's approach), then ocw_interact uses it", async () => {
    const world = activeHost()!.runtime.world;
    const door = world.definition.rooms.lobby!.objects.find((o) => o.id === "obj_door_meeting")!;
    await run("ocw_observe", {}, { agentId: "opener" });
    const moved = await run("ocw_move_to", { targetId: door.id }, { agentId: "opener" });
    const dest = (moved.details as { dest: { tx: number; ty: number } }).dest;
    expect(moved.details).toMatchObject({ targetId: door.id, applied: true, result: "accepted" });
    expect(world.isBlocked("lobby", dest)).toBe(false);
    await until(
      "the opener reaches the door",
      () => {
        const t = world.getEntity("agt_opener")!.tile;
        return t.tx === dest.tx && t.ty === dest.ty;
      },
      20_000,
    );
    const used = await run("ocw_interact", { targetId: door.id, action: "open" }, { agentId: "opener" });
    expect(used.details).toMatchObject({ outcome: { type: "ok" } });
    await expect(
      run("ocw_move_to", { targetId: door.id, tx: 1, ty: 1 }, { agentId: "opener" }),
    ).rejects.toThrow(/bad_request: invalid arguments: give either targetId or tx and ty/);
    await expect(run("ocw_move_to", { tx: 1 }, { agentId: "opener" })).rejects.toThrow(/give tx and ty/);
  });

  it("honours the AbortSignal and the tool timeout", async () => {
    await run("ocw_observe", {}, { agentId: "waiter" });
    await run("ocw_poll_events", {}, { agentId: "waiter" });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await expect(
      run("ocw_poll_events", { waitMs: 20000 }, { agentId: "waiter", signal: controller.signal }),
    ).rejects.toThrow(/cancelled/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(run("ocw_poll_events", { waitMs: 20000 }, { agentId: "waiter" })).rejects.toThrow(
      /did not finish within 1000 ms/,
    );
  });

  it("the policy hook blocks what the config does not enable", () => {
    const hook = register({ tools: { enabled: ["ocw_move_to"], denied: ["ocw.interact"] } }).hooks.get(
      "before_tool_call",
    )!;
    expect(hook({ toolName: "ocw_move_to" }, { agentId: "a" })).toBeUndefined();
    expect(hook({ toolName: "ocw_interact" }, { agentId: "a" })).toMatchObject({ block: true });
    expect(hook({ toolName: "ocw_chat_send" }, { agentId: "a" })).toMatchObject({ block: true });
    expect(hook({ toolName: "ocw_reflect" }, { agentId: "a" })).toMatchObject({
      block: true,
      blockReason: expect.stringContaining("ocw_reflect is not enabled for you"),
    });
    // A heartbeat never carries an action its own tool may not do.
    expect(hook({ toolName: "ocw_heartbeat", params: {} }, { agentId: "a" })).toBeUndefined();
    expect(
      hook({ toolName: "ocw_heartbeat", params: { action: { kind: "moveTo" } } }, { agentId: "a" }),
    ).toBeUndefined();
    expect(
      hook({ toolName: "ocw_heartbeat", params: { action: { kind: "interact" } } }, { agentId: "a" }),
    ).toMatchObject({ block: true });
  });
  it("ocw_heartbeat remembers its context: the second beat carries a chat and the other agent hears it", async () => {
    const first = await run("ocw_heartbeat", {}, { agentId: "beater" });
    expect(first.details).toMatchObject({ self: { roomId: "lobby" }, delta: {} });
    const listener = await run("ocw_heartbeat", {}, { agentId: "listener" });
    const said = await run(
      "ocw_heartbeat",
      { action: { kind: "chatSend", channel: "global", message: "beat hello" } },
      { agentId: "beater", callId: "call-beat-1" },
    );
    expect(said.details).toMatchObject({ action: { status: "ok", data: { applied: true } } });
    // A retry of the same tool call replays the same tx: still one message.
    const again = await run(
      "ocw_heartbeat",
      { action: { kind: "chatSend", channel: "global", message: "beat hello" } },
      { agentId: "beater", callId: "call-beat-1" },
    );
    expect((again.details as { action: unknown }).action).toEqual(
      (said.details as { action: unknown }).action,
    );
    const heard = await run("ocw_heartbeat", {}, { agentId: "listener" });
    expect((heard.details as { delta: { heard: unknown[] } }).delta.heard).toEqual([
      { from: "agt_beater", name: "beater", channel: "global", message: "beat hello" },
    ]);
    expect(heard.content[0]!.text).toContain("beater (agt_beater, global): beat hello");
    expect(listener.details).toHaveProperty("contextToken");
  });

  it("ocw_reflect stores a reflection once (retry), and heartbeat / observe show it only to its author", async () => {
    const args = { content: "the fountain is where people meet", importance: 0.8, topics: ["places"] };
    const stored = await run("ocw_reflect", args, { agentId: "thinker", callId: "call-reflect-1" });
    expect(stored.details).toMatchObject({
      reflection: { content: args.content, importance: 0.8, topics: ["places"], sources: [] },
    });
    expect(stored.content[0]!.text).toMatch(/^Remembered mem_\d+ about places \(importance 0.8\)\.$/);
    const again = await run("ocw_reflect", args, { agentId: "thinker", callId: "call-reflect-1" });
    expect(again.details).toEqual(stored.details);
    const beat = await run("ocw_heartbeat", { memory: 5 }, { agentId: "thinker" });
    const memory = (beat.details as { memory: { kind: string; content?: string }[] }).memory;
    expect(memory.filter((m) => m.kind === "reflection").map((m) => m.content)).toEqual([args.content]);
    expect(beat.content[0]!.text).toContain(`reflection (0.8; places): ${args.content}`);
    const seen = await run("ocw_observe", { radius: 32, memory: 5 }, { agentId: "thinker" });
    expect((seen.details as { memory: unknown[] }).memory).toEqual(memory);
    const plain = await run("ocw_heartbeat", {}, { agentId: "thinker" });
    expect(plain.details).not.toHaveProperty("memory");
    const other = await run("ocw_heartbeat", { memory: 20 }, { agentId: "listener" });
    expect(JSON.stringify((other.details as { memory: unknown[] }).memory)).not.toContain(args.content);
    await expect(
      run("ocw_reflect", { content: "x", importance: 1.5 }, { agentId: "thinker" }),
    ).rejects.toThrow(/importance/);
  });
});

describe("service lifecycle", () => {
  it("stop saves the world and start restores it exactly", async () => {
    const before = activeHost()!;
    await run("ocw_observe", {}, { agentId: "persist" });
    await run("ocw_reflect", { content: "worth keeping", importance: 0.7 }, { agentId: "persist" });
    await reg.services[0]!.stop(serviceCtx());
    expect(activeHost()).toBeUndefined();
    const saved = before.store!.file;
    expect((await stat(saved)).size).toBeGreaterThan(0);
    const savedHash = before.runtime.world.snapshotHash();
    await reg.services[0]!.start(serviceCtx());
    const after = activeHost()!;
    expect(after.origin).toBe("restored");
    expect(after.runtime.world.snapshotHash()).toBe(savedHash);
    expect(after.runtime.world.getEntity("agt_persist")).toBeDefined();
    // Memory is world state: the reflection came back with the world, and the tool reads it.
    const beat = await run("ocw_heartbeat", { memory: 20 }, { agentId: "persist" });
    expect((beat.details as { memory: { content?: string }[] }).memory.map((m) => m.content)).toContain(
      "worth keeping",
    );
  });

  it("tools answer room_not_ready while the service is stopped", async () => {
    await reg.services[0]!.stop(serviceCtx());
    await expect(run("ocw_observe", {}, { agentId: "late" })).rejects.toThrow(/room_not_ready/);
    await reg.services[0]!.start(serviceCtx());
  });
});
