// A world made by `npm run world:new` starts as it is, the way worlds/README.md's tutorial says: the real
// `npm start` with OCW_CONFIG set to the config world:new wrote beside the world. The world says
// `running: true`, it is the new world (not the bundled one, and without the bundled residents), its
// resident stands in it, and an agent that joins sees the sign and its text.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { NEW_WORLD } from "../../scripts/lib/new-world.ts";
import { PROJECT_DIR } from "../../scripts/lib/project.ts";
import { type NpmStarted, npmStart } from "../../scripts/lib/start-cycles.ts";
import { until } from "../support/wait.ts";

let root: string | undefined;
let starting: Promise<NpmStarted> | undefined;
afterAll(async () => {
  // A start still under way (the test gave up on it) is awaited, so that its gateway is stopped too
  // and nothing writes into the folder removed below. npm start stops its gateway on SIGTERM and
  // exits once the gateway has (stop() waits for it).
  const running = await starting?.catch(() => undefined);
  if (running) expect(await running.stop()).toBe(0);
  if (root) await rm(root, { recursive: true, force: true });
});

interface Access {
  agentId: string;
  baseUrl: string;
  headers: Record<string, string>;
  join: Record<string, unknown>;
}

describe("a world:new world under npm start", () => {
  it("runs, with its resident, and an agent that joins reads the sign", async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ocw-world-new-install-"));
    await promisify(execFile)(process.execPath, ["scripts/world-new.ts", "mytown"], {
      cwd: PROJECT_DIR,
      env: { ...process.env, INIT_CWD: root },
    });
    starting = npmStart({
      stateDir: path.join(root, "state"),
      pluginConfigFile: path.join(root, "mytown", NEW_WORLD.configFile),
    });
    const npm = await starting;
    expect(npm.output()).toContain("World:        mytown");

    const status = (await (await fetch(`${npm.baseUrl}/world/api/status`)).json()) as {
      running: boolean;
      residents?: { agentId: string; entityId: string; state: string }[];
    };
    expect(status.running).toBe(true);
    expect(status.residents?.map((r) => r.agentId)).toEqual(["host"]);
    const host = status.residents![0]!.entityId;

    const accessRes = await fetch(`${npm.baseUrl}/openclawworld/admin/access`, {
      headers: { authorization: `Bearer ${npm.gatewayToken}` },
    });
    const { agents } = ((await accessRes.json()) as { data: { agents: Access[] } }).data;
    const helper = agents[0]!;
    const aic = async (endpoint: string, body: Record<string, unknown>) => {
      const res = await fetch(`${helper.baseUrl}/${endpoint}`, {
        method: "POST",
        headers: helper.headers,
        body: JSON.stringify({ ...helper.join, ...body }),
      });
      return (await res.json()) as { status: string; data: unknown };
    };
    expect((await aic("join", {})).status).toBe("ok");
    // The resident joins as the world starts; both it and the sign are in the room the agent sees.
    const seen = await until(
      "the sign and the resident in observe",
      async () => {
        const observed = await aic("observe", { radius: 200, detail: "full" });
        const nearby = (observed.data as { nearby?: { entity: { id: string }; object?: unknown }[] }).nearby;
        const sign = nearby?.find((n) => n.entity.id === "obj_welcome");
        return sign && nearby?.some((n) => n.entity.id === host) ? sign : undefined;
      },
      { timeoutMs: 30_000, everyMs: 500, ignoreErrors: true },
    );
    expect(seen.object).toMatchObject({
      objectType: "sign",
      state: { text: "Welcome! This world was made with npm run world:new." },
    });
    // A gateway takes 30-60 s to come up on an idle machine and over 150 s on a busy one (npm start
    // builds the plugin first): the test's time is the start's.
  }, 600_000);
});
