// What a user does: `npm pack`, then `openclaw plugins install <tgz>` into a fresh gateway (own HOME,
// state, config and TMPDIR), configure, enable, inspect, doctor, start, smoke-test the three doors
// (tool, AIC, web + WebSocket), stop with SIGTERM, and upgrade by installing the tarball again.
// One gateway start; the plugin's runtime dependencies come from the npm registry like a user's.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { CLIENT_DECLARATIONS } from "../../scripts/build-plugin.ts";
import {
  type GatewayDirs,
  type LaunchedGateway,
  openclawCli,
  PROJECT_DIR,
  prepareGatewayDirs,
  randomToken,
  runGateway,
} from "../../scripts/lib/gateway.ts";
import { runCommand } from "../../scripts/lib/run-command.ts";

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

/** What the tarball may hold: the runtime artifacts, docs and metadata. Nothing else. */
const SHIPPED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^openclaw\.plugin\.json$/,
  // The built entries and the client's declarations: the whole dist/ ships (package.json files),
  // whatever the build writes there.
  /^dist\/[\w./-]+\.(js|d\.ts)$/,
  // The play page, the operator's replay page and the follow page; named by content (app-<hash>.js, replay-<hash>.js,
  // and any chunk), each with its precompressed brotli and gzip forms.
  /^web\/dist\/((index|replay|follow)\.html|assets\/[a-z][\w-]*-[A-Z0-9]+\.(js|css))(\.br|\.gz)?$/,
  /^worlds\/(README\.md|lobby\/.+)$/,
  /^skills\/openclawworld\/.+\.md$/,
  /^docs\/aic\/v0\.1\/(aic-schema|events-schema|openapi)\.json$/,
];
const REQUIRED = [
  "package.json",
  "README.md",
  "LICENSE",
  "openclaw.plugin.json",
  "dist/index.js",
  "dist/client.js",
  CLIENT_DECLARATIONS,
  "web/dist/index.html",
  "web/dist/replay.html",
  "web/dist/follow.html",
  "worlds/lobby/world.toml",
  "skills/openclawworld/SKILL.md",
  "docs/aic/v0.1/aic-schema.json",
  "docs/aic/v0.1/openapi.json",
];
// The tools and which are optional, as the manifest lists them (the one list: a new action's tool
// needs no line here).
const MANIFEST = JSON.parse(readFileSync(path.join(PROJECT_DIR, "openclaw.plugin.json"), "utf8")) as {
  contracts: { tools: string[] };
  toolMetadata: Record<string, { optional?: boolean }>;
};
const TOOLS = MANIFEST.contracts.tools;
const OPTIONAL = TOOLS.filter((name) => MANIFEST.toolMetadata[name]?.optional === true);

/** A project of the user's own, with the installed plugin as its only dependency. */
let userProjectDir: Promise<string> | undefined;
function userProject(): Promise<string> {
  userProjectDir ??= (async () => {
    const project = path.join(root, "user-agent");
    await mkdir(path.join(project, "node_modules"), { recursive: true });
    await symlink(
      path.join(dirs.state, "extensions", "openclawworld"),
      path.join(project, "node_modules", "openclawworld"),
    );
    await writeFile(path.join(project, "package.json"), JSON.stringify({ type: "module", private: true }));
    return project;
  })();
  return userProjectDir;
}

async function cli(args: string[]): Promise<string> {
  const result = await openclawCli(dirs, args, { gatewayToken });
  if (result.code !== 0) {
    throw new Error(`openclaw ${args.join(" ")} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

let root: string;
let dirs: GatewayDirs;
let tarball: string;
let packed: PackResult;
let gateway: LaunchedGateway | undefined;
let inspect: Record<string, unknown>;
let doctor: Record<string, unknown>;
const gatewayToken = randomToken();
const agentToken = randomToken();

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "ocw-install-"));
  // prepack builds the web client and dist/index.js, so the tarball holds what the sources say now.
  const pack = await runCommand("npm", ["pack", "--json", "--pack-destination", root], PROJECT_DIR);
  if (pack.code !== 0) throw new Error(`npm pack exited ${pack.code}\n${pack.stdout}\n${pack.stderr}`);
  packed = (JSON.parse(pack.stdout) as PackResult[])[0] as PackResult;
  tarball = path.join(root, packed.filename);

  dirs = await prepareGatewayDirs(path.join(root, "gateway"));
  await writeFile(
    dirs.configPath,
    JSON.stringify({
      gateway: { mode: "local", auth: { mode: "token" } },
      logging: { file: dirs.openclawLogFile },
    }),
  );
  await cli(["plugins", "install", tarball, "--force", "--accept-capabilities"]);
  await cli([
    "config",
    "set",
    "--batch-json",
    JSON.stringify([
      { path: "tools.alsoAllow", value: ["openclawworld"] },
      {
        path: "plugins.entries.openclawworld.config",
        value: {
          agents: { agent_helper: { token: agentToken, name: "Helper Bot" } },
          tools: { enabled: ["ocw_move_to"] },
        },
      },
    ]),
  ]);
  await cli(["plugins", "enable", "openclawworld"]);
  // Both only read the installed plugin and the config: at once, as each CLI start costs seconds of
  // CPU on its own (it loads every plugin).
  const [inspected, doctored] = await Promise.all([
    cli(["plugins", "inspect", "openclawworld", "--runtime", "--json"]),
    cli(["plugins", "doctor", "--json"]),
  ]);
  inspect = JSON.parse(inspected);
  doctor = JSON.parse(doctored);
  gateway = await runGateway({ dirs, gatewayToken, cwd: dirs.root, asUser: true });
});

afterAll(async () => {
  await gateway?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

describe("npm pack", () => {
  it("ships the built entry, web bundle, world, skill, manifest, schemas, README and licence; nothing else", () => {
    const paths = packed.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(REQUIRED));
    for (const ext of [".js", ".js.br", ".js.gz", ".css"]) {
      expect(
        paths.some((p) => p.startsWith("web/dist/assets/app-") && p.endsWith(ext)),
        ext,
      ).toBe(true);
    }
    expect(paths.filter((p) => !SHIPPED.some((allowed) => allowed.test(p)))).toEqual([]);
  });

  it("declares the built runtime entry, runtime dependencies and openclaw as a peer", async () => {
    const pkg = JSON.parse(await readFile(path.join(PROJECT_DIR, "package.json"), "utf8"));
    expect(pkg.openclaw.runtimeExtensions).toEqual(["./dist/index.js"]);
    expect(pkg.openclaw.extensions).toHaveLength(1);
    expect(pkg.peerDependencies.openclaw).toBeTruthy();
    expect(pkg.dependencies.openclaw).toBeUndefined();
    expect(pkg.exports["./client"]).toEqual({
      types: `./${CLIENT_DECLARATIONS}`,
      default: "./dist/client.js",
    });
  });
});

describe("openclaw plugins install <tgz> into a fresh gateway", () => {
  it("installs the plugin with its own runtime dependencies, linked to the host openclaw (no second copy)", async () => {
    const installDir = path.join(dirs.state, "extensions", "openclawworld");
    expect(existsSync(path.join(installDir, "dist", "index.js"))).toBe(true);
    const pkg = JSON.parse(await readFile(path.join(PROJECT_DIR, "package.json"), "utf8"));
    // Every runtime dependency the package declares, not a hand-kept list that drifts from it.
    for (const dep of Object.keys(pkg.dependencies)) {
      expect(existsSync(path.join(installDir, "node_modules", dep, "package.json")), dep).toBe(true);
    }
    const hostLink = path.join(installDir, "node_modules", "openclaw");
    expect(await realpath(hostLink)).toBe(await realpath(path.join(PROJECT_DIR, "node_modules", "openclaw")));
  });

  it("plugins inspect shows every tool, the service, the five routes and the three hooks, with no diagnostics", () => {
    const plugin = inspect.plugin as { status: string; source: string; version: string };
    expect(plugin.status).toBe("loaded");
    expect(plugin.source).toMatch(/extensions[/\\]openclawworld[/\\]dist[/\\]index\.js$/);
    const tools = inspect.tools as { names: string[]; optional: boolean }[];
    expect(tools.flatMap((t) => t.names).sort()).toEqual([...TOOLS].sort());
    expect(
      tools
        .filter((t) => t.optional)
        .flatMap((t) => t.names)
        .sort(),
    ).toEqual([...OPTIONAL].sort());
    expect(inspect.services).toEqual(["openclawworld-world"]);
    // /aic/v0.1, /world, the replay page (plugin auth; its API asks for an operator link's key), the
    // follow page (plugin auth; its API asks for the agent's token or a follow link's key),
    // /openclawworld/admin (gateway auth: operator save/load).
    expect(inspect.httpRouteCount).toBe(5);
    // The tool policy gate, and a resident turn's model requests: their count (its cap) and their
    // failures (status), issue #41.
    expect(inspect.typedHooks).toEqual([
      expect.objectContaining({ name: "before_tool_call" }),
      expect.objectContaining({ name: "model_call_ended" }),
      expect.objectContaining({ name: "model_call_started" }),
    ]);
    expect(inspect.diagnostics).toEqual([]);
  });

  it("plugins doctor is clean", () => {
    expect(doctor).toMatchObject({
      ok: true,
      pluginErrors: [],
      diagnostics: [],
      compatibility: [],
      configurationWarnings: [],
    });
  });
});

describe("the installed plugin in the running gateway", () => {
  const base = () => (gateway as LaunchedGateway).baseUrl;
  const invoke = (tool: string) =>
    fetch(`${base()}/tools/invoke`, {
      method: "POST",
      headers: { authorization: `Bearer ${gatewayToken}`, "content-type": "application/json" },
      body: JSON.stringify({ tool, args: {} }),
    });

  it("ocw_status runs the bundled world", async () => {
    const res = await invoke("ocw_status");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; result: { details: Record<string, unknown> } };
    expect(body.ok).toBe(true);
    const details = body.result.details as { running: boolean; rooms: { roomId: string }[] };
    expect(details.running).toBe(true);
    expect(details.rooms.map((r) => r.roomId)).toEqual(expect.arrayContaining(["lobby", "garden"]));
  });

  it("the plugin's own tools.enabled applies: ocw_interact is not enabled, so the hook blocks it", async () => {
    const res = await invoke("ocw_interact");
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("tool_call_blocked");
  });

  it("an AIC agent joins and observes with its own token; a wrong token is refused", async () => {
    const post = (op: string, body: unknown, token = agentToken) =>
      fetch(`${base()}/aic/v0.1/${op}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const join = await post("join", { agentId: "agent_helper", roomId: "lobby" });
    expect(join.status).toBe(200);
    const observe = await post("observe", {
      agentId: "agent_helper",
      roomId: "lobby",
      radius: 200,
      detail: "full",
    });
    expect(observe.status).toBe(200);
    const body = (await observe.json()) as {
      status: string;
      data: { self: { name: string; roomId: string } };
    };
    expect(body.status).toBe("ok");
    expect(body.data.self).toMatchObject({ name: "Helper Bot", roomId: "lobby" });
    const wrong = await post("observe", { agentId: "agent_helper", roomId: "lobby" }, randomToken());
    expect(wrong.status).toBe(401);
  });

  it("a user's program imports { AicClient } from openclawworld/client (the installed package) and plays", async () => {
    const project = await userProject();
    await writeFile(
      path.join(project, "agent.mjs"),
      [
        'import { AicClient } from "openclawworld/client";',
        "const aic = new AicClient({ baseUrl: process.argv[2], token: process.argv[3] });",
        'const who = { agentId: "agent_helper", roomId: "lobby" };',
        "await aic.join(who);",
        'const said = await aic.chatSend({ ...who, channel: "proximity", message: "hello from a tarball" });',
        'const seen = await aic.observe({ ...who, radius: 100, detail: "lite" });',
        "console.log(JSON.stringify({ said: said.status, txId: said.data?.txId, self: seen.data?.self.name }));",
      ].join("\n"),
    );
    const run = await runCommand(process.execPath, ["agent.mjs", `${base()}/aic/v0.1`, agentToken], project);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({
      said: "ok",
      txId: expect.stringMatching(/^tx_[0-9a-f]{32}$/),
      self: "Helper Bot",
    });
  });

  it("the client's types ship: a strict TypeScript project checks a correct script and refuses a wrong one", async () => {
    const project = await userProject();
    await writeFile(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2023",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023", "DOM"],
          // Nothing of the user's beyond the package: no @types, no skipLibCheck.
          types: [],
        },
        files: ["typed.ts"],
      }),
    );
    const typed = (body: string) =>
      writeFile(
        path.join(project, "typed.ts"),
        [
          'import { AicClient, type AicData } from "openclawworld/client";',
          'const aic = new AicClient({ baseUrl: "http://127.0.0.1:9/aic/v0.1", token: "t" });',
          'const who = { agentId: "agent_helper", roomId: "lobby" };',
          body,
        ].join("\n"),
      );
    const tsc = () =>
      runCommand(
        process.execPath,
        [path.join(PROJECT_DIR, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"],
        project,
      );
    await typed(
      [
        "const moved = await aic.moveTo({ ...who, dest: { tx: 3, ty: 4 } });",
        'if (moved.status === "ok") console.log(moved.data.result);',
        'const seen = await aic.observe({ ...who, radius: 100, detail: "lite" });',
        'if (seen.status === "ok") console.log(seen.data.self.name);',
        'const said: AicData<"chatSend"> | undefined = undefined;',
        "console.log(said);",
      ].join("\n"),
    );
    const good = await tsc();
    expect(good.code, good.stdout).toBe(0);
    await typed(
      [
        "await aic.moveTo({ ...who, dest: { tx: 3, ty: 4 }, speed: 2 });",
        'const seen = await aic.observe({ ...who, radius: 100, detail: "lite" });',
        'if (seen.status === "ok") console.log(seen.data.self.nmae);',
      ].join("\n"),
    );
    const wrong = await tsc();
    expect(wrong.code).not.toBe(0);
    const errors = wrong.stdout.split("\n").filter((line) => line.includes("error TS"));
    expect(errors, wrong.stdout).toEqual([
      expect.stringMatching(/^typed\.ts\(4,.*error TS2353: .*'speed' does not exist/),
      expect.stringMatching(/^typed\.ts\(6,.*error TS2339: Property 'nmae' does not exist/),
    ]);
  });

  it("serves the web client from the package: /world/ and its script, compressed, kept for good", async () => {
    const page = await fetch(`${base()}/world/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("<title>OpenClawWorld</title>");
    const script = /src="(\/world\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const js = await fetch(`${base()}${script}`, { headers: { "accept-encoding": "br, gzip" } });
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("content-encoding")).toBe("br");
    expect(js.headers.get("cache-control")).toContain("immutable");
    const app = await js.text();
    expect(app.length).toBeGreaterThan(10_000);
    // The page's script imports the renderer (Phaser) from a shared chunk; it is served the same way.
    const chunk = /from"\.\/(chunk-[A-Z0-9]+\.js)"/.exec(app)?.[1];
    expect(chunk).toBeTruthy();
    const shared = await fetch(`${base()}/world/assets/${chunk}`, {
      headers: { "accept-encoding": "br, gzip" },
    });
    expect(shared.status).toBe(200);
    expect(shared.headers.get("content-encoding")).toBe("br");
    expect((await shared.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  it("a human joins over the WebSocket and is welcomed into the lobby", async () => {
    const ws = new WebSocket(`${base().replace("http", "ws")}/world/ws`);
    try {
      const welcome = await new Promise<{ type: string; room: { roomId?: string; id?: string } }>(
        (resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("no welcome within 10 s")), 10_000);
          ws.once("open", () => ws.send(JSON.stringify({ type: "join", name: "Packed Tester" })));
          ws.on("message", (data, isBinary) => {
            if (isBinary) return; // actor deltas (binary frames); the welcome is JSON
            const msg = JSON.parse(String(data)) as { type: string; room: { roomId?: string } };
            if (msg.type === "welcome") {
              clearTimeout(timer);
              resolve(msg);
            }
          });
          ws.once("error", reject);
        },
      );
      expect(JSON.stringify(welcome.room)).toContain("lobby");
    } finally {
      ws.close();
    }
  });
});

describe("stop and upgrade", () => {
  it("SIGTERM stops the gateway; the world is saved in the state dir, outside the install dir", async () => {
    const { child } = gateway as LaunchedGateway;
    await (gateway as LaunchedGateway).stop();
    expect(child.exitCode !== null || child.signalCode === "SIGTERM").toBe(true);
    expect(child.signalCode).not.toBe("SIGKILL");
    gateway = undefined;
    // The world's durable store (node:sqlite), closed cleanly on stop.
    const snapshot = path.join(dirs.state, "openclawworld", "world.db");
    expect(existsSync(snapshot)).toBe(true);
    expect(path.relative(path.join(dirs.state, "extensions"), snapshot).startsWith("..")).toBe(true);
  });

  it("installing the tarball again (the upgrade path) keeps the plugin config and the world state", async () => {
    const snapshot = path.join(dirs.state, "openclawworld", "world.db");
    const before = await readFile(snapshot);
    await cli(["plugins", "install", tarball, "--force", "--accept-capabilities"]);
    const config = JSON.parse(await readFile(dirs.configPath, "utf8"));
    expect(config.plugins.entries.openclawworld).toMatchObject({
      enabled: true,
      config: { agents: { agent_helper: { token: agentToken } } },
    });
    expect(config.tools.alsoAllow).toEqual(["openclawworld"]);
    expect((await readFile(snapshot)).equals(before)).toBe(true);
  });
});
