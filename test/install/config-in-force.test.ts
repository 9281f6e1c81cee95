// What you configure is what runs (issue #39), tried the way an operator runs the project: the real
// `npm start`, one state folder, the config changed between starts. OpenClaw 2026.9.6 puts back an
// older config file when a new one looks like a clobber (half the size, no `meta`), so a start with a
// smaller config than the last used to run the older one: a removed agent's token kept working, a
// disabled tool stayed enabled, the resident stayed. Here a larger config (the README's model overlay,
// so the residents wake; two AIC agents; ocw_move_to enabled) with a change applied while it runs, a
// smaller one (one agent, no tools, no overlay: the residents stand asleep, the status says why, and
// the guide tells the agent who comes near how to wake it), then the larger again: each time the
// config just given is the one in force, npm start prints what the world says it runs, and the gateway
// set nothing aside (three starts: each costs a gateway's start, and each order of larger, smaller and
// a change in between is among them). The gateway token npm start generated is kept, so the curl lines it printed at the
// first start still work at the third, as printed. Meanwhile a file in the checkout keeps changing
// (the first hour's `npm start` must not care), and each SIGTERM stops npm and its gateway; a longer
// run of start and stop is `npm run cycles -- --count 10`, the same code. The overlay is the README's
// local model example (Ollama) as shipped, only its provider's base URL swapped for a scripted model on
// loopback: at the first start a "hello Guide" is answered through it, asked of the example's model in
// its wire format.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BUNDLED_RESIDENTS } from "../../scripts/lib/bundled-residents.ts";
import { freePort, randomToken } from "../../scripts/lib/gateway.ts";
import { PROJECT_DIR } from "../../scripts/lib/project.ts";
import {
  alive,
  type CheckoutChurn,
  checkoutChurn,
  type NpmStarted,
  npmStart,
} from "../../scripts/lib/start-cycles.ts";
import { AWAKE_LINE } from "../../src/residents/scheduler.ts";
import {
  launchBrowser,
  mapBlocked,
  mapPoint,
  ocw,
  openPlayer,
  type SeenActor,
  until,
  walkTo,
} from "../support/browser.ts";
import { namedFetch } from "../support/named-fetch.ts";
import { type ScriptedModel, startScriptedModel } from "../support/scripted-model.ts";

const EXAMPLE = path.join(PROJECT_DIR, "examples", "gateway-config.example.json");
const GUIDE_REPLY = "Hi Kept! Welcome to the plaza.";
const KEPT = { id: "agent_kept", token: randomToken() };
const REMOVED = { id: "agent_removed", token: randomToken() };

const LARGER = {
  agents: {
    [KEPT.id]: { token: KEPT.token, name: "Kept" },
    [REMOVED.id]: { token: REMOVED.token, name: "Removed Later" },
  },
  tools: { enabled: ["ocw_move_to"] },
};
const SMALLER = { agents: { [KEPT.id]: { token: KEPT.token, name: "Kept" } }, tools: { enabled: [] } };

let root: string | undefined;
let running: NpmStarted | undefined;
let churn: CheckoutChurn | undefined;
let model: ScriptedModel | undefined;
afterAll(async () => {
  churn?.stop();
  await running?.stop();
  await model?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

interface OperatorStatus {
  config: { fingerprint: string; agents: { agentId: string }[]; tools: { enabled: string[] } };
  residents?: { agentId: string; state: string; reason?: string }[];
}

const RESIDENT_IDS = Object.keys(BUNDLED_RESIDENTS);
/** How npm start names the bundled residents on its Residents line: "Guide (guide), Mara (cafe), ...". */
const RESIDENT_NAMES = Object.entries(BUNDLED_RESIDENTS)
  .map(([id, r]) => `${r.name} (${id})`)
  .join(", ");

async function operatorStatus(npm: NpmStarted): Promise<OperatorStatus> {
  const res = await namedFetch(`${npm.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${npm.gatewayToken}` },
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`operator status answered ${res.status}: ${text.slice(0, 200)}`);
  return (JSON.parse(text) as { data: OperatorStatus }).data;
}

interface Overlay {
  models: { providers: Record<string, { api: string; baseUrl: string; models: { id: string }[] }> };
  agents: { defaults: { model: { primary: string } } };
}

/** The example overlay as shipped, its provider's base URL on `baseUrl`: the file npm start gets. */
async function exampleOn(baseUrl: string, file: string): Promise<Overlay> {
  const example = JSON.parse(await readFile(EXAMPLE, "utf8")) as Overlay;
  const provider = Object.values(example.models.providers)[0]!;
  expect(provider).toMatchObject({ baseUrl: "http://127.0.0.1:11434/v1", api: "openai-completions" });
  provider.baseUrl = baseUrl;
  await writeFile(file, JSON.stringify(example));
  return example;
}

async function kept<T>(npm: NpmStarted, endpoint: string, body: Record<string, unknown>) {
  const res = await namedFetch(`${npm.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEPT.token}`, "content-type": "application/json" },
    body: JSON.stringify({ agentId: KEPT.id, roomId: "lobby", ...body }),
  });
  return (await res.json()) as { status: string; data: T; error?: { code: string } };
}

/** "hello Guide" from the kept agent, and the Guide's answer heard back (a rate-limited look is "not
 * yet"). */
async function guideAnswers(npm: NpmStarted): Promise<void> {
  expect((await kept(npm, "join", {})).status).toBe("ok");
  const said = await kept(npm, "chatSend", {
    txId: "tx_config_in_force_hello",
    channel: "global",
    message: "hello Guide ocw-scenario:example-hello",
  });
  expect(said.status, JSON.stringify(said.error)).toBe("ok");
  await until(
    "the Guide's answer",
    async () => {
      const json = await kept<{ messages: { fromEntityId: string; message: string }[] }>(npm, "chatObserve", {
        windowSec: 300,
      });
      return json.data?.messages?.some((m) => m.fromEntityId === "agt_guide" && m.message === GUIDE_REPLY);
    },
    300_000,
  );
}

/** An AIC read by the agent's token: 401 when the world does not know the token. */
async function aicStatus(npm: NpmStarted, agent: { id: string; token: string }): Promise<number> {
  const res = await namedFetch(`${npm.baseUrl}/aic/v0.1/observe`, {
    method: "POST",
    headers: { authorization: `Bearer ${agent.token}`, "content-type": "application/json" },
    body: JSON.stringify({ agentId: agent.id, roomId: "lobby", radius: 5, detail: "lite" }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** ocw_move_to through the gateway: 403 tool_call_blocked when the policy keeps it off. */
async function moveToBlocked(npm: NpmStarted): Promise<boolean> {
  const res = await namedFetch(`${npm.baseUrl}/tools/invoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${npm.gatewayToken}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: "ocw_move_to", args: { dest: { tx: 10, ty: 10 } } }),
  });
  const body = (await res.json()) as { error?: { type?: string } };
  return res.status === 403 && body.error?.type === "tool_call_blocked";
}

/** The optional tools the gateway's own agent may call, as ocw_status tells it. Asked instead of
 * calling ocw_move_to where it is allowed: that would join the agent beside the guide, whose model
 * (the overlay's model, with no scenario for it) would then be asked for a turn. */
async function enabledForMain(npm: NpmStarted): Promise<string[]> {
  const res = await namedFetch(`${npm.baseUrl}/tools/invoke`, {
    method: "POST",
    headers: { authorization: `Bearer ${npm.gatewayToken}`, "content-type": "application/json" },
    body: JSON.stringify({ tool: "ocw_status", args: {}, agentId: "main" }),
  });
  const body = (await res.json()) as {
    result?: { details?: { caller?: { enabledOptionalTools?: string[] } } };
  };
  return body.result?.details?.caller?.enabledOptionalTools ?? [];
}

async function expectLarger(npm: NpmStarted): Promise<void> {
  const status = await operatorStatus(npm);
  expect(status.config.agents.map((a) => a.agentId).sort()).toEqual(
    [KEPT.id, REMOVED.id, "agent_helper"].sort(),
  );
  expect(status.config.tools.enabled).toEqual(["ocw_move_to"]);
  expect(status.residents?.map((r) => r.agentId)).toEqual(RESIDENT_IDS);
  expect(status.residents?.every((r) => r.state !== "asleep")).toBe(true);
  expect(await aicStatus(npm, REMOVED)).not.toBe(401);
  expect(await enabledForMain(npm)).toEqual(["ocw_move_to"]);
  const printed = npm.output();
  expect(printed).toContain(`Config:       ${status.config.fingerprint}`);
  expect(printed).toContain("Model:        local/qwen3:8b");
  expect(printed).toContain(`Residents:    ${RESIDENT_NAMES}: awake`);
  expect(printed).toContain(`${REMOVED.id} ("Removed Later")`);
}

async function expectSmaller(npm: NpmStarted): Promise<void> {
  const status = await operatorStatus(npm);
  expect(status.config.agents.map((a) => a.agentId).sort()).toEqual([KEPT.id, "agent_helper"].sort());
  expect(status.config.tools.enabled).toEqual([]);
  // Without a model the residents are there, asleep at home, and the status says why.
  expect(status.residents?.map((r) => [r.agentId, r.state])).toEqual(
    RESIDENT_IDS.map((id) => [id, "asleep"]),
  );
  for (const r of status.residents ?? [])
    expect(r.reason).toMatch(/^no model is configured .*README "Residents"/);
  expect(await aicStatus(npm, REMOVED)).toBe(401);
  expect(await aicStatus(npm, KEPT)).not.toBe(401);
  expect(await enabledForMain(npm)).toEqual([]);
  expect(await moveToBlocked(npm)).toBe(true);
  const printed = npm.output();
  expect(printed).toContain(`Config:       ${status.config.fingerprint}`);
  expect(printed).toContain("Model:        none configured");
  expect(printed).toContain(`Residents:    ${RESIDENT_NAMES}: asleep: no model is configured`);
  await asleepGuideTellsHowToWake(npm);
  await asleepOnThePage(npm);
  expect(printed).not.toContain(REMOVED.id);
}

/** The kept agent walks to `dest` and is there (a rate-limited look is "not yet"). */
async function keptWalks(npm: NpmStarted, dest: { tx: number; ty: number }): Promise<void> {
  const moved = await kept(npm, "moveTo", { txId: `tx_cif_walk_${Date.now()}`, dest });
  expect(moved.status, JSON.stringify(moved.error)).toBe("ok");
  await until(`the kept agent at ${dest.tx},${dest.ty}`, async () => {
    const seen = await kept<{ self: { tile?: { tx: number; ty: number } } }>(npm, "observe", {
      radius: 5,
      detail: "lite",
    });
    return seen.data?.self.tile?.tx === dest.tx && seen.data.self.tile.ty === dest.ty;
  });
}

/** Asleep, the guide tells one who comes near how to wake it: the README's step. */
async function asleepGuideTellsHowToWake(npm: NpmStarted): Promise<void> {
  expect((await kept(npm, "join", {})).status).toBe("ok");
  const home = BUNDLED_RESIDENTS.guide!.home;
  // From well away (it may stand by the guide from an earlier start), then beside it.
  await keptWalks(npm, { tx: home.tx + 8, ty: home.ty + 6 });
  await keptWalks(npm, { tx: home.tx + 1, ty: home.ty + 1 });
  await until("the asleep guide's hint", async () => {
    const json = await kept<{ messages: { fromEntityId: string; message: string }[] }>(npm, "chatObserve", {
      windowSec: 300,
    });
    return json.data?.messages?.some(
      (m) => m.fromEntityId === "agt_guide" && /asleep.*OCW_GATEWAY_CONFIG.*README/.test(m.message),
    );
  });
}

/** Given a model again, the guide that told the kept agent it was asleep says to the room that it woke:
 * its old line is still in the chat the agent reads. */
async function guideSaysItWoke(npm: NpmStarted): Promise<void> {
  await until("the guide's line that it woke, after any asleep hint", async () => {
    const json = await kept<{ messages: { fromEntityId: string; message: string }[] }>(npm, "chatObserve", {
      windowSec: 300, // the most a look back takes (simulation time: it stood still between starts)
    });
    const lines = (json.data?.messages ?? [])
      .filter((m) => m.fromEntityId === "agt_guide")
      .map((m) => m.message);
    const asleepAt = lines.findLastIndex((line) => /asleep.*OCW_GATEWAY_CONFIG/.test(line));
    return lines.slice(asleepAt + 1).includes(AWAKE_LINE);
  });
}

/** The page shows the asleep guide as asleep for as long as it sleeps: "z z" after its name, drawn
 * faded, and the pointer over it tells how to wake the residents (the README's step). */
async function asleepOnThePage(npm: NpmStarted): Promise<void> {
  const browser = await launchBrowser();
  try {
    const { page } = await openPlayer(browser, npm.baseUrl, "Sleepwatcher");
    const guide = await until("the guide drawn", async () =>
      (await ocw<SeenActor[]>(page, "entities()")).find((e) => e.id === "agt_guide"),
    );
    expect(guide).toMatchObject({ asleep: true, alpha: expect.closeTo(0.55, 2) });
    const tags = await ocw<string[]>(page, "tags()");
    expect(tags.some((t) => t.includes("Guide") && t.endsWith(" · AI z z"))).toBe(true);
    // Where a newcomer is put can leave the Guide at the screen's edge, under the top bar: stand
    // two tiles below it first, then hover it where the map is.
    await walkTo(page, guide.tx, guide.ty + 2, await mapBlocked(npm.baseUrl, "lobby"));
    const p = await mapPoint(page, guide.tx, guide.ty);
    await page.mouse.move(p.x, p.y);
    const tip = page.locator("#tooltip");
    await until("the asleep guide's card", async () => (await tip.isVisible()) && (await tip.textContent()));
    expect(await tip.textContent()).toMatch(
      /Guide.* is asleep: .*OCW_GATEWAY_CONFIG=examples\/gateway-config\.example\.json npm start \(README, "Residents"\)/,
    );
  } finally {
    await browser.close();
  }
}

/** The gateway set no config aside and restored none (its own files and log). */
async function expectNothingRestored(stateDir: string): Promise<void> {
  const files = await readdir(path.join(stateDir, "state"));
  expect(files.filter((f) => f.includes(".clobbered."))).toEqual([]);
  const log = await readFile(path.join(stateDir, "gateway.log"), "utf8");
  expect(log).not.toMatch(/auto-restored/i);
}

describe("npm start runs the config it is given, start after start", () => {
  it("larger with a change while it runs, smaller, larger: each is what runs; the generated gateway token and its curl lines survive restarts", {
    timeout: 1_500_000,
  }, async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ocw-config-in-force-"));
    const stateDir = path.join(root, "state-root");
    const larger = path.join(root, "larger.json");
    const smaller = path.join(root, "smaller.json");
    await writeFile(larger, JSON.stringify(LARGER));
    await writeFile(smaller, JSON.stringify(SMALLER));
    model = await startScriptedModel();
    model.define("example-hello", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: GUIDE_REPLY } }] },
      { text: "done" },
    ]);
    const overlayFile = path.join(root, "gateway-config.json");
    const example = await exampleOn(model.baseUrl, overlayFile);
    // One port for every start, as a person's npm start has: the printed curl lines name it.
    const port = await freePort();
    churn = await checkoutChurn("config-in-force");
    let writesAtStart = 0;
    const start = async (pluginConfigFile: string, overlay: boolean) => {
      writesAtStart = churn!.writes();
      running = await npmStart({
        stateDir,
        port,
        pluginConfigFile,
        ...(overlay ? { gatewayConfigFile: overlayFile } : {}),
      });
      return running;
    };
    const stop = async () => {
      // The checkout did change while this gateway started and ran.
      expect(churn!.writes() - writesAtStart).toBeGreaterThan(10);
      expect(await running!.stop()).toBe(0);
      expect(alive(running!.gatewayPid)).toBe(false);
      running = undefined;
    };

    const run = async () => {
      const first = await start(larger, true);
      await expectLarger(first);
      await guideAnswers(first);
      // The turn asked the example's model, on the example's provider, in its wire format.
      const [asked] = model!.requests("example-hello");
      expect(asked).toMatchObject({ wire: "openai" });
      expect(`${Object.keys(example.models.providers)[0]}/${asked!.body.model}`).toBe(
        example.agents.defaults.model.primary,
      );
      const printedCurl = /^ +(curl -s -X POST \S+\/tools\/invoke .*)$/m.exec(first.output())?.[1];
      expect(printedCurl).toBeDefined();
      // A change applied while it runs (the operator edits the file the gateway watches): the removed
      // agent's token is refused once the reload is in force.
      const configPath = path.join(stateDir, "state", "openclaw.json");
      const before = (await operatorStatus(first)).config.fingerprint;
      const file = JSON.parse(await readFile(configPath, "utf8")) as {
        plugins: { entries: { openclawworld: { config: { agents: Record<string, unknown> } } } };
      };
      delete file.plugins.entries.openclawworld.config.agents[REMOVED.id];
      await writeFile(configPath, `${JSON.stringify(file, null, 2)}\n`);
      await vi.waitFor(
        async () => {
          const status = await operatorStatus(first);
          expect(status.config.fingerprint).not.toBe(before);
          expect(await aicStatus(first, REMOVED)).toBe(401);
        },
        { timeout: 120_000, interval: 1000 },
      );
      await stop();

      // The smaller after the larger changed while it ran.
      const second = await start(smaller, false);
      await expectSmaller(second);
      expect(second.gatewayToken).toBe(first.gatewayToken);
      await expectNothingRestored(stateDir);
      await stop();

      // The larger again after the smaller: the removed agent is back, as the file given says.
      const third = await start(larger, true);
      await expectLarger(third);
      await guideSaysItWoke(third);
      // The line printed at the first start, run as a person would paste it.
      const { stdout } = await promisify(execFile)("bash", ["-c", printedCurl!]);
      expect(JSON.parse(stdout)).toMatchObject({ ok: true, result: { details: { running: true } } });
      await expectNothingRestored(stateDir);
      await stop();
      expect(existsSync(path.join(stateDir, "gateway-token"))).toBe(true);
      // The staged plugin folder sits beside the gateway's state, not around it; the pid file of the
      // last npm start is gone.
      const plugin = path.join(stateDir, "plugin");
      expect(existsSync(path.join(plugin, "dist", "index.js"))).toBe(true);
      expect(await readdir(plugin)).not.toContain("state");
      expect(existsSync(path.join(stateDir, "state", "openclawworld", "world.db"))).toBe(true);
      expect(existsSync(path.join(stateDir, "npm-start.pid"))).toBe(false);
    };
    try {
      await run();
    } catch (error) {
      // The gateway's own words, for a failure here (the state folder is removed after the test).
      // The whole of it, with what npm start printed, also goes to .test-artifacts/: a failure seen
      // once in a full run (its error text lost with the run's output) is then still there to read.
      const log = await readFile(path.join(stateDir, "gateway.log"), "utf8").catch(() => "");
      const tail = log.split("\n").filter((line) => !line.includes("PluginInstanceUnavailableError"));
      const failure = `${error instanceof Error ? error.stack : error}`;
      await mkdir(".test-artifacts", { recursive: true });
      await writeFile(
        ".test-artifacts/config-in-force-failure.txt",
        `${failure}\n--- npm start ---\n${running?.output() ?? "(none running)"}\n--- gateway.log ---\n${log}`,
      );
      throw new Error(`${failure}\n--- gateway.log ---\n${tail.slice(-60).join("\n")}`);
    }
  });
});
