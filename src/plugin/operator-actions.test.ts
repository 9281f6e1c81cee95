// Operator save/load and checkpoints (seed 001), and that a restore stays invisible to agents.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { resolveConfig } from "../config/config.ts";
import { OPERATOR_ROUTE, operatorRouteHandler } from "../http/operator-routes.ts";
import { REPLAY_ROUTE, replayRouteHandler } from "../http/replay-routes.ts";
import {
  closeRun,
  createCheckpoint,
  currentSnapshot,
  getRun,
  labelRun,
  listCheckpoints,
  listNotes,
  listRuns,
  loadSnapshot,
  OperatorError,
  removeNote,
  restoreCheckpoint,
  saveNow,
  startRun,
} from "../runtime/operator.ts";
import { smallWorld } from "../world/testing/fixtures.ts";
import { World } from "../world/world.ts";
import { createHost, type WorldHost } from "./host.ts";
import { operatorActions } from "./operator-actions.ts";
import { operatorStatus, worldStatus } from "./status.ts";

const quiet = { info() {}, warn() {}, error() {} };
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

async function setup(stateDir?: string, rawConfig: Record<string, unknown> = {}) {
  const dir = stateDir ?? mkdtempSync(path.join(os.tmpdir(), "ocw-operator-"));
  const host = await createHost({ config: resolveConfig(rawConfig), logger: quiet, stateDir: dir });
  cleanup.push(() => {
    host.runtime.stop();
    host.store?.close();
    if (!stateDir) rmSync(dir, { recursive: true, force: true });
  });
  const aic = new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const tick = async <T>(pending: Promise<T>): Promise<T> => {
    host.runtime.stepNow();
    return pending;
  };
  return { host, aic, tick, dir };
}

const say = (message: string, txId: string) => ({
  agentId: "op_a",
  roomId: "lobby",
  txId,
  channel: "global" as const,
  message,
});

function errorOf(fn: () => unknown): OperatorError {
  try {
    fn();
  } catch (error) {
    if (error instanceof OperatorError) return error;
    throw error;
  }
  throw new Error("expected an OperatorError");
}

describe("durability config", () => {
  it("fsyncs every tick by default; snapshot.fsync: false writes to the OS only", async () => {
    const { host } = await setup();
    expect(host.store?.synchronous).toBe("full");
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-operator-"));
    const config = resolveConfig({ snapshot: { fsync: false } });
    const relaxed = await createHost({ config, logger: quiet, stateDir: dir });
    cleanup.push(() => {
      relaxed.store?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    expect(relaxed.store?.synchronous).toBe("normal");
  });
});

describe("operator save/load", () => {
  it("saves snapshots with format, sim time and hash; lists and restores named checkpoints", async () => {
    const { host, aic, tick } = await setup();
    await tick(aic.call("join", "op_a", { agentId: "op_a", roomId: "lobby" }));
    await tick(aic.call("chatSend", "op_a", say("kept", "tx_op_kept1")));
    const saved = saveNow(host);
    expect(saved).toMatchObject({
      format: "openclawworld.snapshot.v1",
      world: "lobby",
      sceneHash: host.definition.sceneHash,
      tick: host.runtime.world.tick,
      time: host.runtime.world.serverTsMs,
      hash: host.runtime.world.snapshotHash(),
    });
    const cp = createCheckpoint(host, "before-party");
    expect(cp).toMatchObject({ label: "before-party", tick: saved.tick, time: saved.time, hash: saved.hash });
    expect(listCheckpoints(host).map((c) => c.label)).toEqual(["before-party"]);
    expect(errorOf(() => createCheckpoint(host, "no spaces"))).toMatchObject({ status: 400 });

    const join = await aic.call("pollEvents", "op_a", {
      agentId: "op_a",
      roomId: "lobby",
      sinceCursor: "c_0",
    });
    await tick(aic.call("chatSend", "op_a", say("undone", "tx_op_undone1")));
    const late = await aic.call("pollEvents", "op_a", {
      agentId: "op_a",
      roomId: "lobby",
      sinceCursor: "c_0",
    });
    if (late.status !== "ok" || join.status !== "ok") throw new Error("poll failed");

    const restored = restoreCheckpoint(host, "before-party");
    expect(restored.hash).toBe(saved.hash);
    expect(host.runtime.world.snapshotHash()).toBe(saved.hash);
    expect(host.runtime.world.chatFor("agt_op_a", "lobby", 0).map((m) => m.message)).toEqual(["kept"]);
    // A cursor from the undone future is refused as expired (never silently skips), with a way on.
    const ahead = await aic.call("pollEvents", "op_a", {
      agentId: "op_a",
      roomId: "lobby",
      sinceCursor: late.data.nextCursor,
    });
    expect(ahead).toMatchObject({
      status: "error",
      error: { code: "conflict", details: { reason: "cursor_expired", nextCursor: join.data.nextCursor } },
    });
    // The restored timeline is what a restart comes back to.
    await tick(aic.call("chatSend", "op_a", say("after restore", "tx_op_after1")));
    const hash = host.runtime.world.snapshotHash();
    host.runtime.stop();
    host.store!.close();
    const again = await setup(path.dirname(path.dirname(host.store!.file)));
    expect(again.host.runtime.world.snapshotHash()).toBe(hash);
    expect(again.host.recovery?.problems).toEqual([]);
  });

  it("refuses another world's snapshot, another format and a missing checkpoint with clear errors", async () => {
    const { host } = await setup();
    const other = World.create(smallWorld()).snapshot();
    expect(errorOf(() => loadSnapshot(host, other)).message).toMatch(
      /snapshot of world .* cannot restore into "lobby"/,
    );
    const wrong = { ...currentSnapshot(host), format: "clawblox.v0" };
    expect(errorOf(() => loadSnapshot(host, wrong))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/format "clawblox.v0" is not openclawworld.snapshot.v1/),
    });
    expect(errorOf(() => loadSnapshot(host, "nope")).message).toMatch(/JSON object/);
    expect(errorOf(() => restoreCheckpoint(host, "missing"))).toMatchObject({ status: 404 });
    // Its own snapshot loads.
    const mine = currentSnapshot(host);
    expect(loadSnapshot(host, JSON.parse(JSON.stringify(mine))).tick).toBe(mine.tick);
  });

  it("agents see sim time only: no origin, no wall-clock health; the operator sees both", async () => {
    const { host } = await setup();
    restoreCheckpoint(host, createCheckpoint(host, "x").label!);
    const agentView = JSON.stringify(worldStatus(host, host.config, "someone"));
    expect(agentView).not.toMatch(/origin|restored|lastTickMs|failedTicks|health/);
    // Start's runtime details as data (seed 001): where the world is served and its scene hash.
    expect(worldStatus(host, host.config)).toMatchObject({
      world: { sceneHash: host.definition.sceneHash },
      endpoints: { web: "/world/", aicBase: "/aic/v0.1", status: "/world/api/status" },
    });
    expect(operatorStatus(host)).toMatchObject({ origin: "restored", health: { running: false } });
  });
});

/** The operator route over a real socket on 127.0.0.1, as curl and the CLI reach it. */
async function operatorServer(host: WorldHost) {
  const handler = operatorRouteHandler(() => operatorActions(host), quiet);
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${OPERATOR_ROUTE}`;
  return (route: string, init?: RequestInit) => fetch(`${base}${route}`, init);
}

describe("save and load over HTTP (issue #39)", () => {
  it("GET /snapshot answers the document itself; POSTing those bytes to /load brings back the saved world", async () => {
    const { host, aic, tick } = await setup();
    const admin = await operatorServer(host);
    await tick(aic.call("join", "op_a", { agentId: "op_a", roomId: "lobby" }));
    expect(await tick(aic.call("chatSend", "op_a", say("before the save", "tx_op_http1")))).toMatchObject({
      status: "ok",
    });
    const savedHash = host.runtime.world.snapshotHash();
    const saved = await admin("/snapshot");
    expect(saved.status).toBe(200);
    const bytes = await saved.text();
    // Seed 001: format and (sim) time at the top of the saved document, not under {status, data}.
    expect(JSON.parse(bytes)).toMatchObject({
      format: "openclawworld.snapshot.v1",
      time: expect.any(Number),
    });
    expect(await tick(aic.call("chatSend", "op_a", say("after the save", "tx_op_http2")))).toMatchObject({
      status: "ok",
    });
    expect(host.runtime.world.snapshotHash()).not.toBe(savedHash);

    const loaded = await admin("/load", { method: "POST", body: bytes });
    expect(loaded.status).toBe(200);
    expect(((await loaded.json()) as { data: { hash: string } }).data.hash).toBe(savedHash);
    expect(host.runtime.world.snapshotHash()).toBe(savedHash);

    // A file saved from the earlier wrapped answer ({status, data}) loads too.
    await tick(aic.call("chatSend", "op_a", say("after the load", "tx_op_http3")));
    const wrapped = JSON.stringify({ status: "ok", data: JSON.parse(bytes) });
    expect((await admin("/load", { method: "POST", body: wrapped })).status).toBe(200);
    expect(host.runtime.world.snapshotHash()).toBe(savedHash);
    // What is not a snapshot is refused with its reason, and nothing changes.
    const refused = await admin("/load", { method: "POST", body: JSON.stringify({ format: "other.v1" }) });
    expect(refused.status).toBe(409);
    expect(host.runtime.world.snapshotHash()).toBe(savedHash);
  });

  it("the agents' access records (seed 001 api_access) and the config in force", async () => {
    const raw = {
      agents: {
        scout: { token: "scout-token-0123456789", name: "Scout" },
        local_only: { name: "Local" },
      },
      tools: { enabled: ["ocw_move_to"] },
    };
    const { host } = await setup(undefined, raw);
    const admin = await operatorServer(host);
    const all = (await (await admin("/access")).json()) as { data: { agents: { agentId: string }[] } };
    // An agent without a token is the gateway's own (it uses the tools): no access record.
    expect(all.data.agents.map((a) => a.agentId)).toEqual(["scout"]);
    const one = (await (await admin("/access/scout")).json()) as { data: Record<string, unknown> };
    const origin = `http://127.0.0.1:${new URL((await admin("/status")).url).port}`;
    expect(one.data).toMatchObject({
      agentId: "scout",
      name: "Scout",
      roomId: "lobby",
      baseUrl: `${origin}/aic/v0.1`,
      headers: { Authorization: "Bearer scout-token-0123456789" },
      join: { agentId: "scout", roomId: "lobby" },
      endpoints: {
        join: `POST ${origin}/aic/v0.1/join`,
        reflect: `POST ${origin}/aic/v0.1/memory/reflect`,
        eventsStream: `GET ${origin}/aic/v0.1/events/stream`,
      },
    });
    const missing = await admin("/access/local_only");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");

    const status = (await (await admin("/status")).json()) as {
      data: { config: { fingerprint: string; agents: unknown[]; tools: { enabled: string[] } } };
    };
    expect(status.data.config.fingerprint).toBe(resolveConfig(raw).fingerprint);
    expect(status.data.config.tools.enabled).toEqual(["ocw_move_to"]);
    expect(JSON.stringify(status.data.config)).not.toContain("scout-token");
    // Another config, another fingerprint; the same settings spelled with defaults, the same one.
    expect(resolveConfig({}).fingerprint).not.toBe(resolveConfig(raw).fingerprint);
    expect(resolveConfig({ defaultRoomId: "lobby", ...raw }).fingerprint).toBe(
      resolveConfig(raw).fingerprint,
    );
  });
});

describe("run records (seed 001 record_run, issue #30)", () => {
  it("starts, labels and closes a bounded run; its manifest has start/end ticks, scene hash, checkpoints; durable", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-operator-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const { host } = await setup(dir);
    for (let i = 0; i < 3; i++) host.runtime.stepNow();
    const started = startRun(host, "demo-1");
    expect(started).toMatchObject({
      label: "demo-1",
      state: "open",
      sceneHash: host.definition.sceneHash,
      start: { tick: 3, time: host.runtime.world.serverTsMs },
      checkpoints: [],
    });
    expect(started.end).toBeUndefined();
    expect(errorOf(() => startRun(host, "demo-2"))).toMatchObject({ status: 409, code: "conflict" });
    for (let i = 0; i < 2; i++) host.runtime.stepNow();
    const saved = createCheckpoint(host, "mid-run");
    host.runtime.stepNow();
    expect(labelRun(host, String(started.id), "demo-final").label).toBe("demo-final");
    const closed = closeRun(host, String(started.id));
    expect(closed).toMatchObject({
      id: started.id,
      label: "demo-final",
      state: "closed",
      start: { tick: 3 },
      end: { tick: 6, time: host.runtime.world.serverTsMs },
      checkpoints: [{ label: "mid-run", tick: 5, time: saved.time, hash: saved.hash }],
    });
    // Checkpoints after the run closed are not part of it.
    createCheckpoint(host, "after-run");
    expect(getRun(host, String(started.id)).checkpoints.map((c) => c.label)).toEqual(["mid-run"]);
    // Typed refusals.
    expect(errorOf(() => closeRun(host, String(started.id)))).toMatchObject({ status: 409 });
    expect(errorOf(() => getRun(host, "99"))).toMatchObject({ status: 404, code: "not_found" });
    expect(errorOf(() => getRun(host, "x'; DROP"))).toMatchObject({ status: 404 });
    expect(errorOf(() => startRun(host, "no spaces"))).toMatchObject({ status: 400, code: "bad_request" });
    expect(errorOf(() => labelRun(host, String(started.id), ""))).toMatchObject({ status: 400 });
    const second = startRun(host, "demo-2");
    expect(second.id).toBeGreaterThan(started.id);
    // Durable: a restart lists the same manifests (the open run stays open).
    const before = listRuns(host);
    host.runtime.stop();
    host.store?.close();
    const again = await setup(dir);
    expect(listRuns(again.host)).toEqual(before);
    expect(listRuns(again.host).map((r) => r.state)).toEqual(["closed", "open"]);
  });
});

describe("store problems in the operator status (issue #30)", () => {
  it("a damaged store's set-aside, salvage and fallback are listed; a clean start lists none", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-operator-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await setup(dir);
    expect(operatorStatus(first.host).durability).toMatchObject({ problems: [] });
    first.host.runtime.stop();
    first.host.store?.close();
    const file = first.host.store!.file;
    writeFileSync(file, "garbage ".repeat(4096));
    for (const suffix of ["-wal", "-shm"]) rmSync(file + suffix, { force: true });

    const second = await setup(dir);
    const problems = (operatorStatus(second.host).durability as { problems: string[] }).problems;
    expect(problems.join("\n")).toMatch(/is not usable .* kept it at .*damaged/);
    expect(problems.join("\n")).toMatch(/salvage of .*: nothing of it could be read/);
    expect(problems.join("\n")).toMatch(/started from the snapshot copy/);
  });
});

describe("operator moderation of notice boards", () => {
  it("lists the boards' notes and takes one down; the removal is journaled and survives a restart", async () => {
    const { host, aic, tick, dir } = await setup();
    const agent = { agentId: "op_a", roomId: "town" };
    await tick(aic.call("join", "op_a", agent));
    await tick(aic.call("moveTo", "op_a", { ...agent, txId: "tx_op_walk1", dest: { tx: 23, ty: 17 } }));
    for (let i = 0; i < 600 && host.runtime.world.getEntity("agt_op_a")?.speed !== 0; i++)
      host.runtime.stepNow();
    const post = (text: string, txId: string) =>
      tick(
        aic.call("interact", "op_a", {
          ...agent,
          txId,
          targetId: "obj_board_square",
          action: "post",
          params: { text },
        }),
      );
    expect(await post("buy my goat", "tx_op_post1")).toMatchObject({
      status: "ok",
      data: { outcome: { type: "ok" } },
    });
    const board = () => listNotes(host).find((b) => b.objectId === "obj_board_square")!;
    expect(board()).toMatchObject({ roomId: "town", title: "Town notice board" });
    expect(board().notes.map((n) => [n.id, n.name, n.text])).toEqual([["n1", "op_a", "buy my goat"]]);

    const removing = removeNote(host, { objectId: "obj_board_square", noteId: "n1" });
    host.runtime.stepNow();
    expect(await removing).toEqual({ objectId: "obj_board_square", noteId: "n1", removed: true });
    expect(board().notes).toEqual([]);
    for (const [body, status] of [
      [{ objectId: "obj_board_square", noteId: "n1" }, 404],
      [{ objectId: "obj_nope", noteId: "n1" }, 404],
      [{ objectId: "obj_sign_welcome", noteId: "n1" }, 400],
      [{ noteId: "n1" }, 400],
      ["garbage", 400],
    ] as const) {
      const refused = removeNote(host, body).catch((error: unknown) => error);
      host.runtime.stepNow();
      expect(await refused, JSON.stringify(body)).toMatchObject({ status });
    }
    host.runtime.stop();
    host.store?.close();
    const again = await createHost({ config: resolveConfig({}), logger: quiet, stateDir: dir });
    cleanup.push(() => {
      again.runtime.stop();
      again.store?.close();
    });
    expect(listNotes(again).find((b) => b.objectId === "obj_board_square")!.notes).toEqual([]);
    expect(again.runtime.world.snapshotHash()).toBe(host.runtime.world.snapshotHash());
  });
});

describe("while the world is not running (a reload, a locked store)", () => {
  it("the operator and replay routes answer a typed, retryable 503 with Retry-After", async () => {
    const doors = [
      { route: OPERATOR_ROUTE, handler: operatorRouteHandler(() => undefined, quiet) },
      {
        route: REPLAY_ROUTE,
        handler: replayRouteHandler(
          () => undefined,
          quiet,
          () => true,
        ),
      },
    ];
    for (const { route, handler } of doors) {
      const server = createServer((req, res) => void handler(req, res));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      cleanup.push(() => server.close());
      const res = await fetch(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}${route}/api/status`,
      );
      expect(res.status, route).toBe(503);
      expect(res.headers.get("retry-after"), route).toBe("1");
      expect(await res.json(), route).toMatchObject({
        status: "error",
        error: { code: "room_not_ready", retryable: true },
      });
    }
  });
});
