// `npm start`: a real OpenClaw gateway on 127.0.0.1 with this plugin and the bundled world. The plugin
// is built and staged as an installed plugin would be (scripts/lib/plugin-stage.ts); the gateway's
// state lives beside it in OCW_STATE_DIR, never in the plugin's folder. Environment:
//   OCW_PORT                gateway port (default 18789)
//   OPENCLAW_GATEWAY_TOKEN  the operator token (when unset, one is generated once and kept in the
//                           state directory, so the printed curl lines keep working after a restart)
//   OCW_CONFIG              a JSON file of plugin config merged over the defaults below (one that
//                           names a `world` runs it without the bundled world's residents)
//   OCW_GATEWAY_CONFIG      a JSON file of gateway config merged over the defaults (model providers,
//                           agents...; examples/gateway-config.example.json)
//   OCW_STATE_DIR           where the gateway's state and the staged plugin go (default .openclaw-dev)
//   OCW_READY_TIMEOUT_SEC, OCW_READY_STALL_SEC  how long to wait for it (scripts/lib/readiness.ts)
// Ctrl-C / SIGTERM stop it cleanly.
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../src/runtime/private-files.ts";
import { bundledResidentsConfig, residentsGatewayConfig } from "./lib/bundled-residents.ts";
import { launchGateway, PROJECT_DIR, randomToken } from "./lib/gateway.ts";
import { deepMerge } from "./lib/merge.ts";

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

/** A JSON object from the file an environment variable names, or {} when it is unset. */
async function jsonFileFrom(variable: string): Promise<Record<string, unknown>> {
  const file = process.env[variable];
  if (!file) return {};
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    fail(`${variable} (${file}): ${error instanceof Error ? error.message : error}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    fail(`${variable} (${file}) must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

const stateRoot = path.resolve(process.env.OCW_STATE_DIR || path.join(PROJECT_DIR, ".openclaw-dev"));
await ensurePrivateDir(stateRoot);

// One npm start per state directory: a second one would restage the plugin folder under the first.
const pidFile = path.join(stateRoot, "npm-start.pid");
if (existsSync(pidFile)) {
  const other = Number((await readFile(pidFile, "utf8")).trim());
  let alive = false;
  try {
    process.kill(other, 0);
    alive = other !== process.pid;
  } catch {}
  if (alive) {
    fail(
      `Another npm start (pid ${other}) is using ${stateRoot}; stop it first, or give this one its own OCW_STATE_DIR.`,
    );
  }
}
await writePrivateFile(pidFile, `${process.pid}\n`);

/** A token generated once and kept in the state directory (a private file), like the world itself. */
async function keptToken(name: string): Promise<string> {
  const file = path.join(stateRoot, name);
  if (existsSync(file)) {
    const kept = (await readFile(file, "utf8")).trim();
    if (kept) return kept;
  }
  const token = randomToken();
  await writePrivateFile(file, `${token}\n`);
  return token;
}

const port = Number(process.env.OCW_PORT ?? 18789);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  fail(`OCW_PORT must be a TCP port, got "${process.env.OCW_PORT}"`);
}
const generatedToken = !process.env.OPENCLAW_GATEWAY_TOKEN;
const gatewayToken = process.env.OPENCLAW_GATEWAY_TOKEN || (await keptToken("gateway-token"));

const userGatewayConfig = await jsonFileFrom("OCW_GATEWAY_CONFIG");
const primaryModel = (userGatewayConfig.agents as { defaults?: { model?: { primary?: string } } } | undefined)
  ?.defaults?.model?.primary;
const userPluginConfig = await jsonFileFrom("OCW_CONFIG");
// A world of one's own (npm run world:new writes its config): a relative `world` is the config
// file's neighbour, wherever npm start is run from.
if (typeof userPluginConfig.world === "string" && process.env.OCW_CONFIG)
  userPluginConfig.world = path.resolve(path.dirname(process.env.OCW_CONFIG), userPluginConfig.world);
// The bundled world's residents (scripts/lib/bundled-residents.ts): gateway agents of their own that the world
// wakes when someone comes near or talks to them. They are there whenever the world is the bundled one
// (their homes are its rooms); they think only when the gateway has a model, and without one they
// stand at home asleep.
const bundledWorld = userPluginConfig.world === undefined;
const pluginConfig = deepMerge(
  {
    ...(bundledWorld ? { defaultRoomId: "lobby", ...bundledResidentsConfig() } : {}),
    // Edit the world's files and see them in the running world (docs/configuration.md).
    watchWorld: true,
    agents: { agent_helper: { token: await keptToken("demo-agent-token"), name: "Helper Bot" } },
  },
  userPluginConfig,
);
// Every resident in force, the bundled ones or a world's own, gets an agent entry of its own once
// there is a model to think with.
const residentIds = Object.keys((pluginConfig.residents as Record<string, unknown> | undefined) ?? {});
const gatewayConfig = primaryModel
  ? deepMerge(residentsGatewayConfig(residentIds), userGatewayConfig)
  : userGatewayConfig;

interface InForce {
  status: {
    world: { name: string; sceneHash: string };
    endpoints: { web: string; status: string; aicBase: string; openapi: string };
    config: {
      fingerprint: string;
      tools: { enabled: string[]; perAgent: Record<string, { enabled: string[] }> };
    };
    residents?: { agentId: string; name: string; state: string; reason?: string }[];
  };
  access: {
    agentId: string;
    name: string;
    baseUrl: string;
    headers: { Authorization: string };
    join: object;
  }[];
  model: string | undefined;
  /** A link to the operator's replay page, minted at start (its own key, good for 12 hours). */
  replayUrl: string | undefined;
}

/** What the running gateway says it runs (see the banner below). */
async function readBack(base: string, token: string, configPath: string): Promise<InForce> {
  const admin = async (route: string, method = "GET") => {
    const res = await fetch(`${base}/openclawworld/admin/${route}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
    const answer = (await res.json()) as { status?: string; data?: unknown };
    if (answer.status !== "ok") throw new Error(`operator ${route} answered ${res.status}`);
    return answer.data;
  };
  const [status, access, replay] = await Promise.all([
    admin("status"),
    admin("access"),
    // A world without a replay history (replay.enabled false) has no page to link to.
    admin("replay/link", "POST").catch(() => undefined),
  ]);
  const held = JSON.parse(await readFile(configPath, "utf8")) as {
    agents?: { defaults?: { model?: { primary?: string } | string } };
  };
  const model = held.agents?.defaults?.model;
  return {
    status: status as InForce["status"],
    access: (access as { agents: InForce["access"] }).agents,
    model: typeof model === "string" ? model : model?.primary,
    replayUrl: (replay as { url?: string } | undefined)?.url,
  };
}

// Ctrl-C or SIGTERM while the gateway is still coming up stops it too, rather than leaving it behind.
let stopping = false;
const starting = new AbortController();
let shutdown = (signal: string): void => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the gateway ...`);
  starting.abort();
};
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));

console.log(
  `Starting the OpenClaw gateway on 127.0.0.1:${port} (state in ${path.relative(process.cwd(), stateRoot) || "."}) ...`,
);
let gateway: Awaited<ReturnType<typeof launchGateway>>;
try {
  gateway = await launchGateway({
    stateRoot,
    port,
    gatewayToken,
    pluginConfig,
    gatewayConfig,
    onWaiting: (line) => console.log(`  ... ${line}`),
    signal: starting.signal,
  });
} catch (error) {
  await rm(pidFile, { force: true });
  if (stopping) {
    console.log("Stopped.");
    process.exit(0);
  }
  fail(error instanceof Error ? error.message : String(error), 1);
}

if (stopping) {
  // The signal came just as the gateway got ready.
  await gateway.stop();
  await rm(pidFile, { force: true });
  console.log("Stopped.");
  process.exit(0);
}

const base = gateway.baseUrl;
// Where this start serves, for `openclaw ocw ...` run from this checkout: it finds the gateway (and the
// gateway token beside it) without --url (operatorTarget in src/plugin/operator-cli.ts).
await writePrivateFile(path.join(stateRoot, "gateway-url"), `${base}\n`);
// Everything below is read back from the running gateway, not from what this script wrote: the world
// says where it is served and what config it runs (operator status, seed 001: start
// returns its runtime details as data), the agents' access records come from the operator route, and
// the model from the config file the gateway holds.
const inForce = await readBack(base, gateway.gatewayToken, gateway.configPath);
const { status, access, model, replayUrl } = inForce;
const { endpoints } = status;
const [first] = access;
const asJson = "-H 'Content-Type: application/json'";
const toolsLine = (() => {
  const { enabled, perAgent } = status.config.tools;
  const per = Object.entries(perAgent)
    .filter(([, lists]) => lists.enabled.length > 0)
    .map(([agentId, lists]) => `${agentId}: ${lists.enabled.join(", ")}`);
  return [enabled.length ? `all agents: ${enabled.join(", ")}` : "none for all agents", ...per].join("; ");
})();
// Residents alike are named together: five asleep for want of a model are one line with its reason.
const residentsLine = (() => {
  const groups = new Map<string, string[]>();
  for (const r of status.residents ?? []) {
    const how = `${r.state}${r.reason ? `: ${r.reason}` : ""}`;
    groups.set(how, [...(groups.get(how) ?? []), `${r.name} (${r.agentId})`]);
  }
  return groups.size > 0
    ? [...groups].map(([how, names]) => `${names.join(", ")}: ${how}`).join("; ")
    : "none (plugin config residents)";
})();
console.log(`
OpenClawWorld is up (gateway ready in ${(gateway.startupMs / 1000).toFixed(1)} s, pid ${gateway.pid}).

  OpenClaw is an AI agent gateway; this project is a plugin that hosts a world inside it. Its agents
  act through tools; agents anywhere else speak AIC (the Agent Interface Contract) over HTTP.

  World:        ${status.world.name} (scene ${status.world.sceneHash})
  Web client:   ${base}${endpoints.web}
  World status: ${base}${endpoints.status}
  AIC base URL: ${base}${endpoints.aicBase}   (OpenAPI: ${base}${endpoints.openapi})
  Operator:     ${base}/openclawworld/admin/{status,snapshot,access,checkpoints} (gateway token)
  Replay:       ${replayUrl ?? "off (replay.enabled is false)"}${replayUrl ? "\n                (the operator's, 12 hours; another: openclaw ocw replay link)" : ""}
  Follow:       ${base}/openclawworld/follow/#token=<an AIC agent's token>: the world as that agent is in it;
                for an agent's owner without its token: openclaw ocw follow <agentId> (docs/follow.md)
  Config:       ${status.config.fingerprint} (what the world runs, read back from it)
  AIC agents:   ${
    access.length
      ? access.map((a) => `${a.agentId} ("${a.name}")`).join(", ")
      : "none configured (add plugin config agents.<id>.token)"
  }${
    first
      ? `
    ${first.agentId}: ${first.headers.Authorization}
    curl -s -X POST ${first.baseUrl}/join -H '${`Authorization: ${first.headers.Authorization}`}' ${asJson} -d '${JSON.stringify(first.join)}'
    curl -s -X POST ${first.baseUrl}/observe -H '${`Authorization: ${first.headers.Authorization}`}' ${asJson} -d '${JSON.stringify({ ...first.join, radius: 200, detail: "full" })}'
    all of it as data: curl -s ${base}/openclawworld/admin/access -H 'Authorization: Bearer ${gateway.gatewayToken}'`
      : ""
  }
  Tools:        ocw_status, ocw_heartbeat, ocw_observe, ocw_poll_events, ocw_chat_observe; enabled: ${toolsLine}
  Gateway token${generatedToken ? " (generated once, kept in the state directory; set OPENCLAW_GATEWAY_TOKEN to choose one)" : ""}: ${gateway.gatewayToken}
    curl -s -X POST ${base}/tools/invoke -H 'Authorization: Bearer ${gateway.gatewayToken}' ${asJson} -d '{"tool":"ocw_status","args":{}}'
  Model:        ${
    model
      ? `${model}: the gateway's agents can take turns`
      : "none configured, so the gateway's agents cannot take turns; add a provider with\n                OCW_GATEWAY_CONFIG=<file> (see examples/gateway-config.example.json)"
  }
  Residents:    ${residentsLine}
  Gateway log:  ${gateway.logFile}

Press Ctrl-C to stop.`);

const running = gateway;
shutdown = (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the gateway ...`);
  void running
    .stop()
    .then(() => rm(pidFile, { force: true }))
    .then(() => {
      console.log("Stopped.");
      process.exit(0);
    });
};
gateway.child.once("exit", (code) => {
  if (stopping) return;
  void rm(pidFile, { force: true }).finally(() => {
    console.error(`The gateway exited unexpectedly (code ${code}); see ${gateway.logFile}`);
    process.exit(1);
  });
});
