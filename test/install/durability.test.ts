// Crash test against a real gateway of its own (its unclean boot must not disturb other tests; so it
// runs with the install files, which start gateways of their own). Two agents move and chat through AIC at a steady rate; the gateway is killed
// with SIGKILL 25 ms after an acknowledgement while other requests are in flight; after a restart on
// the same state directory every acknowledged action is there exactly once, retries by txId answer
// byte-identically, an event cursor from before the crash continues without a gap, a rate-limit bucket
// emptied before the crash is still empty, and a heartbeat token from before it still works.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import {
  freePort,
  type LaunchedGateway,
  launchGateway,
  openclawCli,
  prepareGatewayDirs,
  randomToken,
  runGateway,
} from "../../scripts/lib/gateway.ts";
import { buildWebIfNeeded } from "../../scripts/lib/web-build.ts";
import { canonicalHash } from "../../src/world/snapshot.ts";
import { launchBrowser, ocw, until, watchedPage } from "../support/browser.ts";
import { runOcw } from "../support/ocw-cli.ts";
import { pace } from "../support/wait.ts";

const AGENTS = ["agent_crash_a", "agent_crash_b"] as const;
type AgentId = (typeof AGENTS)[number];

interface Ack {
  agentId: AgentId;
  path: "moveTo" | "chatSend";
  body: Record<string, unknown>;
  answer: string;
}

let stateRoot: string | undefined;
let live: LaunchedGateway | undefined;
/** The restarted gateway's agent and operator calls, for the tests after the crash test. */
let restarted:
  | {
      call(
        agentId: AgentId,
        endpoint: string,
        body: Record<string, unknown>,
      ): Promise<{ status: number; text: string }>;
      admin(route: string, init?: RequestInit): Promise<Response>;
      gatewayToken: string;
    }
  | undefined;

afterAll(async () => {
  await live?.stop(); // SIGTERM, then wait for the exit
  if (stateRoot) await rm(stateRoot, { recursive: true, force: true });
});

describe("durability: kill -9 of a real gateway", () => {
  it("loses no acknowledged action, applies none twice, replays retries, keeps cursors", {
    timeout: 600_000,
  }, async () => {
    await buildWebIfNeeded();
    stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-crash-"));
    const tokens = Object.fromEntries(AGENTS.map((id) => [id, randomToken()])) as Record<AgentId, string>;
    const launch = async () =>
      launchGateway({
        stateRoot: stateRoot!,
        port: await freePort(),
        gatewayToken,
        pluginConfig: {
          agents: Object.fromEntries(AGENTS.map((id) => [id, { token: tokens[id], name: id }])),
          // Room for a steady rate from two agents; the limiter is not what this test is about.
          // observe refills so slowly (one token per 1000 s) that a bucket emptied before the kill is
          // still empty however long the restart takes.
          rateLimits: {
            classes: {
              action: { perSec: 50, burst: 50 },
              chatSend: { perSec: 50, burst: 50 },
              observe: { perSec: 0.001, burst: 2 },
            },
          },
        },
      });
    const gatewayToken = randomToken();
    live = await launch();

    const call = async (agentId: AgentId, endpoint: string, body: Record<string, unknown>) => {
      const res = await fetch(`${live!.baseUrl}/aic/v0.1/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${tokens[agentId]}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };

    const cursors: Record<AgentId, string> = {} as Record<AgentId, string>;
    for (const agentId of AGENTS) {
      const joined = await call(agentId, "join", { agentId, roomId: "lobby" });
      expect(joined.status).toBe(200);
      cursors[agentId] = JSON.parse(joined.text).data.cursor;
    }
    // A reflection acknowledged before the traffic (memory is world state, issue #12).
    const reflectBody = {
      agentId: "agent_crash_a",
      roomId: "lobby",
      txId: `tx_reflect_${Date.now().toString(36)}`,
      content: "the crash test is about to begin",
      topics: ["durability"],
      importance: 0.9,
    };
    const reflected = await call("agent_crash_a", "memory/reflect", reflectBody);
    expect(reflected.status, reflected.text).toBe(200);
    // agent_crash_a empties its observe bucket (answered at once, between ticks); agent_crash_b takes a
    // heartbeat context token. Both must mean the same after the crash.
    const look = () =>
      call("agent_crash_a", "observe", {
        agentId: "agent_crash_a",
        roomId: "lobby",
        radius: 3,
        detail: "lite",
      });
    expect((await look()).status).toBe(200);
    expect((await look()).status).toBe(200);
    expect((await look()).status).toBe(429);
    const beat = await call("agent_crash_b", "heartbeat", { agentId: "agent_crash_b", roomId: "lobby" });
    expect(beat.status).toBe(200);
    const contextToken = JSON.parse(beat.text).data.contextToken as string;

    const map = (await (await fetch(`${live.baseUrl}/world/maps/lobby.json`)).json()) as {
      width: number;
      height: number;
      layers: { name: string; data?: number[] }[];
    };
    const collision = map.layers.find((l) => l.name === "collision")!.data!;
    const freeTiles: { tx: number; ty: number }[] = [];
    for (let ty = 1; ty < map.height - 1; ty++)
      for (let tx = 1; tx < map.width - 1; tx++)
        if (collision[ty * map.width + tx] === 0) freeTiles.push({ tx, ty });

    // Steady traffic from both agents; 25 ms after the 30th acknowledgement the gateway is killed
    // with SIGKILL while requests are in flight.
    const acks: Ack[] = [];
    const unacked: Omit<Ack, "answer">[] = [];
    const runId = Date.now().toString(36);
    let killed = false;
    const killAfter = 30;
    // Four lanes (each agent moves in one and chats in another), each sending again soon after its
    // answer: requests are in flight when the gateway dies. Every 200 answer is an acknowledgement, also one
    // read after the kill (the server answered before it died).
    const lanes = AGENTS.flatMap((agentId, agentIndex) =>
      (["moveTo", "chatSend"] as const).map((path) => ({ agentId, agentIndex, path })),
    );
    const traffic = lanes.map(async ({ agentId, agentIndex, path: endpoint }) => {
      for (let i = 0; !killed && i < 400; i++) {
        const txId = `tx_${runId}_${agentIndex}_${endpoint}_${i}`;
        const body =
          endpoint === "moveTo"
            ? {
                agentId,
                roomId: "lobby",
                txId,
                dest: freeTiles[(i * 7 + agentIndex * 13) % freeTiles.length],
              }
            : { agentId, roomId: "lobby", txId, channel: "global", message: `${agentId} says ${i}` };
        let answer: { status: number; text: string };
        try {
          answer = await call(agentId, endpoint, body);
        } catch {
          // The connection died with the gateway: not acknowledged, so it may or may not have applied.
          unacked.push({ agentId, path: endpoint, body });
          break;
        }
        expect(answer.status, answer.text).toBe(200);
        acks.push({ agentId, path: endpoint, body, answer: answer.text });
        if (acks.length === killAfter) {
          // Half a tick after the acknowledgement: the other lanes have sent their next requests,
          // which wait for a tick that never comes.
          setTimeout(() => {
            killed = true;
            live!.child.kill("SIGKILL");
          }, 25);
        }
        // Random pauses shorter than a tick keep the lanes out of step with the ticks, so at the
        // kill some requests are queued for the next tick.
        await pace(Math.random() * 20);
      }
    });
    await Promise.all(traffic);
    expect(killed).toBe(true);
    await live.stop(); // reaps the killed process (it is already gone: no SIGTERM drain happens)
    expect(acks.length).toBeGreaterThanOrEqual(killAfter);
    const ackedChats = acks.filter((a) => a.path === "chatSend");
    const ackedMoves = acks.filter((a) => a.path === "moveTo");
    expect(ackedChats.length).toBeGreaterThanOrEqual(10);
    expect(ackedMoves.length).toBeGreaterThanOrEqual(10);

    // Restart on the same state directory (an unclean boot for the gateway: readiness = running), as
    // an operator restarts it: the staged plugin and the config are still there, nothing is rebuilt.
    live = await runGateway({
      dirs: await prepareGatewayDirs(stateRoot!),
      port: await freePort(),
      gatewayToken,
    });

    console.info(
      `crash test: ${acks.length} acknowledged (${ackedMoves.length} moves, ${ackedChats.length} chats), ${unacked.length} in flight at the kill`,
    );

    // 0. The operator sees how the world came back (agents do not: their status has no origin).
    const admin = (route: string, init: RequestInit = {}) =>
      fetch(`${live!.baseUrl}/openclawworld/admin${route}`, {
        ...init,
        headers: { authorization: `Bearer ${gatewayToken}`, "content-type": "application/json" },
      });
    const operator = await (await admin("/status")).json();
    expect(operator.data).toMatchObject({
      origin: "restored",
      durability: { recovery: { problems: [], quarantinedTicks: 0 } },
    });
    expect(operator.data.durability.recovery.replayedTicks).toBeGreaterThan(0);
    restarted = { call, admin, gatewayToken };
    expect((await fetch(`${live.baseUrl}/openclawworld/admin/status`)).status).toBe(401);
    const publicStatus = await (await fetch(`${live.baseUrl}/world/api/status`)).text();
    expect(publicStatus).not.toMatch(/origin|restored|lastTickMs/);
    const checkpoint = await (
      await admin("/checkpoints", { method: "POST", body: '{"label":"after-crash"}' })
    ).json();
    expect(checkpoint.data).toMatchObject({ label: "after-crash", format: "openclawworld.snapshot.v1" });

    // 1. Rate limits and heartbeat tokens survive: the emptied bucket is still empty, and the token from
    // before the crash carries an action (no reset of the agent's delta).
    const limited = await look();
    expect(limited.status, limited.text).toBe(429);
    expect(JSON.parse(limited.text).error).toMatchObject({
      code: "rate_limited",
      details: { rateClass: "observe" },
    });
    const resumed = await call("agent_crash_b", "heartbeat", {
      agentId: "agent_crash_b",
      roomId: "lobby",
      contextToken,
      action: {
        kind: "chatSend",
        txId: `tx_${runId}_after_crash`,
        channel: "global",
        message: "token survived",
      },
    });
    expect(resumed.status, resumed.text).toBe(200);
    const resumedData = JSON.parse(resumed.text).data;
    expect(resumedData.reset).toBeUndefined();
    expect(resumedData.action).toMatchObject({ status: "ok", data: { applied: true } });

    // 2. Every acknowledged chat is in the room's history exactly once.
    const history = JSON.parse(
      (
        await call("agent_crash_a", "chatObserve", {
          agentId: "agent_crash_a",
          roomId: "lobby",
          windowSec: 300,
        })
      ).text,
    ).data.messages as { message: string }[];
    for (const chat of ackedChats) {
      expect(history.filter((m) => m.message === chat.body.message)).toHaveLength(1);
    }

    // 3. Retries of every acknowledged action answer byte-identically (replayed, not applied anew).
    for (const ack of acks) {
      const retry = await call(ack.agentId, ack.path, ack.body);
      expect(retry.status).toBe(200);
      expect(retry.text).toBe(ack.answer);
    }
    // Retries of the in-flight, unacknowledged ones are fine either way, and never apply twice.
    for (const pending of unacked) {
      const first = await call(pending.agentId, pending.path, pending.body);
      const again = await call(pending.agentId, pending.path, pending.body);
      expect(again.text).toBe(first.text);
    }
    // The reflection came back with the world (in the agent's own working memory, once), and its
    // retry answers byte-identically.
    const recalled = await call("agent_crash_a", "heartbeat", {
      agentId: "agent_crash_a",
      roomId: "lobby",
      memory: 20,
    });
    const memory = JSON.parse(recalled.text).data.memory as { kind: string; content?: string }[];
    expect(memory.filter((m) => m.kind === "reflection").map((m) => m.content)).toEqual([
      reflectBody.content,
    ]);
    expect((await call("agent_crash_a", "memory/reflect", reflectBody)).text).toBe(reflected.text);
    const after = JSON.parse(
      (
        await call("agent_crash_a", "chatObserve", {
          agentId: "agent_crash_a",
          roomId: "lobby",
          windowSec: 300,
        })
      ).text,
    ).data.messages as { message: string }[];
    const counts = new Map<string, number>();
    for (const m of after) counts.set(m.message, (counts.get(m.message) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);

    // 4. The cursor from before the crash continues: every acknowledged chat arrives once, in order.
    const seen: string[] = [];
    let cursor = cursors.agent_crash_b;
    for (let page = 0; page < 50; page++) {
      const polled = JSON.parse(
        (
          await call("agent_crash_b", "pollEvents", {
            agentId: "agent_crash_b",
            roomId: "lobby",
            sinceCursor: cursor,
            limit: 200,
          })
        ).text,
      );
      expect(polled.status).toBe("ok"); // not cursor_expired: nothing was dropped here
      for (const event of polled.data.events as { type: string; payload: { message?: string } }[])
        if (event.type === "chat.message") seen.push(event.payload.message!);
      if (polled.data.nextCursor === cursor) break;
      cursor = polled.data.nextCursor;
    }
    const ackedMessages = ackedChats.map((c) => c.body.message as string);
    expect(seen.filter((m) => ackedMessages.includes(m))).toHaveLength(ackedMessages.length);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(after.map((m) => m.message));
  });

  it("browsers are resynced after an operator restore: events continue, a character from the abandoned timeline joins again", {
    timeout: 300_000,
  }, async () => {
    if (!live || !restarted) throw new Error("needs the restarted gateway of the crash test");
    const { call, admin } = restarted;
    const gw = live;
    const browser = await launchBrowser();
    try {
      const open = async (name: string) => {
        const watched = await watchedPage(browser);
        await watched.page.goto(`${gw.baseUrl}/world/?name=${name}`);
        await until(`${name} online`, () => ocw<string>(watched.page, "status").then((s) => s === "online"));
        await until(`${name} drawn`, () => ocw<unknown>(watched.page, "me()"));
        return watched;
      };
      const chatOf = (page: Page) =>
        ocw<{ message: string }[]>(page, "chat()").then((lines) => lines.map((l) => l.message));
      const early = await open("Early");
      const saved = await admin("/checkpoints", { method: "POST", body: '{"label":"before-future"}' });
      expect(saved.status).toBe(200);
      // The timeline the operator will abandon: a human who joins after the checkpoint, and chat.
      const late = await open("Late");
      const lateId = await ocw<string>(late.page, "entityId");
      const say = (message: string, n: number) =>
        call("agent_crash_a", "chatSend", {
          agentId: "agent_crash_a",
          roomId: "lobby",
          txId: `tx_restore_${Date.now().toString(36)}_${n}`,
          channel: "global",
          message,
        });
      for (let i = 0; i < 3; i++) expect((await say(`abandoned ${i}`, i)).status).toBe(200);
      await until("Early hears the abandoned timeline", () =>
        chatOf(early.page).then((lines) => lines.includes("abandoned 2")),
      );

      const restored = await admin("/checkpoints/before-future/restore", { method: "POST" });
      expect(restored.status).toBe(200);
      // The first chat of the restored world reuses the event number of "abandoned 0": a browser
      // that kept its old position would never show it.
      expect((await say("after the restore", 9)).status).toBe(200);
      await until("Early hears the restored world", () =>
        chatOf(early.page).then((lines) => lines.includes("after the restore")),
      );
      expect(await ocw<string>(early.page, "status")).toBe("online");
      // Late has no character in the restored world: its browser reconnects and joins afresh.
      await until("Late joins the restored world", async () => {
        const [status, id, me] = await Promise.all([
          ocw<string>(late.page, "status"),
          ocw<string>(late.page, "entityId"),
          ocw<unknown>(late.page, "me()"),
        ]);
        return status === "online" && id !== lateId && me !== undefined;
      });
      for (const page of [early, late])
        expect(page.consoleErrors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("the gateway CLI saves, lists and restores checkpoints of the running world", {
    timeout: 600_000,
  }, async () => {
    if (!live || !restarted || !stateRoot) throw new Error("needs the restarted gateway of the crash test");
    const dirs = await prepareGatewayDirs(stateRoot); // the same directories and config as the gateway's
    // The token comes from OPENCLAW_GATEWAY_TOKEN, as for the gateway's own commands; the gateway runs
    // on a port of its own, so the URL is given.
    const cli = (args: string[], gatewayToken = restarted!.gatewayToken) =>
      openclawCli(dirs, ["ocw", "checkpoint", ...args, "--url", live!.baseUrl], { gatewayToken });
    const json = (stdout: string) => JSON.parse(stdout.slice(stdout.search(/^[[{]/m)));

    // The real CLI, twice at once (each start costs ~15-30 s of CPU: it loads every plugin): a save,
    // with the token from the environment, and a wrong token's refusal, with its exit code. The
    // commands after it run in this process (runOcw): the same command code against the same gateway,
    // for this test and the next.
    const [saved, refused] = await Promise.all([
      cli(["save", "from-cli"]),
      cli(["list"], "not-the-operator-token"),
    ]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(json(saved.stdout)).toMatchObject({ label: "from-cli", format: "openclawworld.snapshot.v1" });
    const ocw = (...args: string[]) => runOcw(live!.baseUrl, restarted!.gatewayToken, "checkpoint", ...args);
    const labels = (json(await ocw("list")).checkpoints as { label: string }[]).map((c) => c.label);
    expect(labels).toContain("from-cli");
    expect(json(await ocw("restore", "from-cli"))).toMatchObject({
      format: "openclawworld.snapshot.v1",
      world: "lobby",
    });
    // The gateway, not the plugin, checks the token: a wrong one is refused in plain words.
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("refused the operator token");
  });

  it("the world saved over HTTP loads back from the same bytes, by curl and by the CLI; agents' access records as data (issue #39)", {
    timeout: 600_000,
  }, async () => {
    if (!live || !restarted || !stateRoot) throw new Error("needs the restarted gateway of the crash test");
    const { admin, call } = restarted;
    const say = (message: string, txId: string) =>
      call("agent_crash_a", "chatSend", {
        agentId: "agent_crash_a",
        roomId: "lobby",
        txId,
        channel: "global",
        message,
      });
    // curl: GET /snapshot > saved.json; POST /load --data-binary @saved.json (docs/operating.md).
    const bytes = await (await admin("/snapshot")).text();
    const savedHash = canonicalHash(JSON.parse(bytes));
    expect((await say("after the save", `tx_${Date.now()}_http_save`)).status).toBe(200);
    const loaded = await admin("/load", { method: "POST", body: bytes });
    expect(loaded.status).toBe(200);
    expect(((await loaded.json()) as { data: { hash: string } }).data.hash).toBe(savedHash);

    // The CLI's commands (run in this process, as in the test before: the real `openclaw` started
    // there): openclaw ocw snapshot save FILE, then load FILE, against the running gateway.
    const dirs = await prepareGatewayDirs(stateRoot);
    const cli = (...args: string[]) => runOcw(live!.baseUrl, restarted!.gatewayToken, ...args);
    const file = path.join(dirs.tmp, "saved-by-cli.json");
    const saved = await cli("snapshot", "save", file);
    expect(JSON.parse(saved)).toMatchObject({ file, format: "openclawworld.snapshot.v1" });
    const cliHash = canonicalHash(JSON.parse(await readFile(file, "utf8")));
    expect((await say("after the CLI save", `tx_${Date.now()}_cli_save`)).status).toBe(200);
    const reloaded = await cli("snapshot", "load", file);
    expect(JSON.parse(reloaded)).toMatchObject({ format: "openclawworld.snapshot.v1", hash: cliHash });
    // Seed 001's api_access: what a script puts into an agent's prompt, and it works as given.
    const record = JSON.parse(await cli("access", "show", "agent_crash_b")) as {
      baseUrl: string;
      headers: Record<string, string>;
      join: Record<string, unknown>;
    };
    const joined = await fetch(`${record.baseUrl}/join`, {
      method: "POST",
      headers: record.headers,
      body: JSON.stringify(record.join),
    });
    expect(joined.status, await joined.text()).toBe(200);
  });
});

// Issue #42's "a colleague opens it on another gateway": a stretch exported from this gateway (its own
// state directory) is opened on another gateway (another state directory, the bundled world as a plain
// config runs it), with the CLI as an operator would, and shows exactly what this gateway shows.
describe("a replay export opened on another gateway", () => {
  let otherRoot: string | undefined;
  let other: LaunchedGateway | undefined;
  afterAll(async () => {
    await other?.stop();
    if (otherRoot) await rm(otherRoot, { recursive: true, force: true });
  });

  it("shows the same frames, markers and keyframe hashes there", { timeout: 300_000 }, async () => {
    if (!live || !restarted) throw new Error("needs the restarted gateway of the crash test");
    otherRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-replay-other-"));
    const otherToken = randomToken();
    other = await launchGateway({ stateRoot: otherRoot, port: await freePort(), gatewayToken: otherToken });
    const said = `for the other gateway ${Date.now().toString(36)}`;
    const spoke = await restarted.call("agent_crash_a", "chatSend", {
      agentId: "agent_crash_a",
      roomId: "lobby",
      txId: `tx_${Date.now().toString(36)}_export`,
      channel: "global",
      message: said,
    });
    expect(spoke.status, spoke.text).toBe(200);
    const here = { baseUrl: live.baseUrl, gatewayToken: restarted.gatewayToken };
    const there = { baseUrl: other.baseUrl, gatewayToken: otherToken };
    const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-replay-share-"));
    try {
      const file = path.join(dir, "stretch.json");
      // The chat is in the stretch once a tick after it is recorded.
      const exported = await until(
        "the chat is in an exported stretch",
        async () => {
          const out = JSON.parse(
            await runOcw(here.baseUrl, here.gatewayToken, "replay", "export", file, "1"),
          ) as {
            world: string;
            run: { segment: number; from: number; to: number };
          };
          const markers = await replayRead(
            here,
            "/markers",
            `segment=${out.run.segment}&from=${out.run.from}&to=${out.run.to}&room=lobby`,
          );
          return (markers as { markers: { kind: string; text: string }[] }).markers.some(
            (m) => m.text === said,
          )
            ? out
            : undefined;
        },
        60_000,
      );
      const opened = JSON.parse(await runOcw(there.baseUrl, there.gatewayToken, "replay", "open", file)) as {
        file: string;
        stretch: {
          segment: number;
          firstTick: number;
          lastTick: number;
          keyframes: { tick: number; hash: string }[];
        };
      };
      const { segment, from, to } = exported.run;
      const overview = (await replayRead(here, "/", "")) as {
        stretches: { segment: number; keyframes: { tick: number; hash: string }[] }[];
      };
      const recorded = overview.stretches.find((s) => s.segment === segment)!.keyframes;
      // The file starts at the keyframe at or before the minute's first tick (that tick itself when the
      // gateway has run under a minute since its restart: a slow machine takes longer).
      const start = recorded.filter((k) => k.tick <= from).at(-1)!;
      expect([opened.stretch.firstTick, opened.stretch.lastTick]).toEqual([start.tick, to]);
      // The keyframes' state hashes there are the ones this gateway recorded.
      expect(opened.stretch.keyframes.length).toBeGreaterThan(0);
      for (const k of opened.stretch.keyframes)
        expect(recorded.find((r) => r.tick === k.tick)?.hash).toBe(k.hash);
      // Markers and frames (first, middle and last tick) are the same on both gateways.
      const stretch = `segment=${segment}&from=${from}&to=${to}&room=lobby`;
      const fileStretch = `file=${opened.file}&from=${from}&to=${to}&room=lobby`;
      const markers = (await replayRead(here, "/markers", stretch)) as { markers: { text: string }[] };
      expect(markers.markers.some((m) => m.text === said)).toBe(true);
      const fileMarkers = (await replayRead(there, "/markers", fileStretch)) as { markers: unknown[] };
      expect(fileMarkers.markers).toEqual(markers.markers);
      for (const tick of [from, Math.floor((from + to) / 2), to]) {
        const frame = await replayRead(here, "/frame", `${stretch}&tick=${tick}`);
        expect(await replayRead(there, "/frame", `${fileStretch}&tick=${tick}`)).toEqual(frame);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** One replay read through a gateway's operator route (its `data`). */
async function replayRead(gw: { baseUrl: string; gatewayToken: string }, route: string, query: string) {
  const res = await fetch(`${gw.baseUrl}/openclawworld/admin/replay${route === "/" ? "" : route}?${query}`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
  });
  const body = (await res.json()) as { data: unknown };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.data;
}
