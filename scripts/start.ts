// `npm start`: a real OpenClaw gateway on 127.0.0.1 with this plugin and the bundled world.
// Reads OCW_PORT (default 18789), OPENCLAW_GATEWAY_TOKEN (generated when unset) and OCW_CONFIG (a JSON
// file of plugin config merged over the defaults). Ctrl-C / SIGTERM stop it cleanly.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ensurePrivateDir, writePrivateFile } from "../src/runtime/private-files.ts";
import { launchGateway, PROJECT_DIR, randomToken } from "./lib/gateway.ts";
import { deepMerge } from "./lib/merge.ts";
import { buildWebIfNeeded } from "./lib/web-build.ts";

const stateRoot = path.join(PROJECT_DIR, ".openclaw-dev");
await ensurePrivateDir(stateRoot);

async function demoAgentToken(): Promise<string> {
  const file = path.join(stateRoot, "demo-agent-token");
  if (existsSync(file)) return (await readFile(file, "utf8")).trim();
  const token = randomToken();
  await writePrivateFile(file, `${token}\n`);
  return token;
}

const port = Number(process.env.OCW_PORT ?? 18789);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`OCW_PORT must be a TCP port, got "${process.env.OCW_PORT}"`);
  process.exit(2);
}
const generatedToken = !process.env.OPENCLAW_GATEWAY_TOKEN;
const gatewayToken = process.env.OPENCLAW_GATEWAY_TOKEN || randomToken();

let pluginConfig: Record<string, unknown> = {
  defaultRoomId: "lobby",
  agents: { agent_helper: { token: await demoAgentToken(), name: "Helper Bot" } },
};
if (process.env.OCW_CONFIG) {
  try {
    const overrides = JSON.parse(await readFile(process.env.OCW_CONFIG, "utf8")) as Record<string, unknown>;
    pluginConfig = deepMerge(pluginConfig, overrides);
  } catch (error) {
    console.error(
      `OCW_CONFIG (${process.env.OCW_CONFIG}): ${error instanceof Error ? error.message : error}`,
    );
    process.exit(2);
  }
}

await buildWebIfNeeded();
console.log(
  `Starting the OpenClaw gateway on 127.0.0.1:${port} (state in ${path.relative(process.cwd(), stateRoot) || "."}) ...`,
);
let gateway: Awaited<ReturnType<typeof launchGateway>>;
try {
  gateway = await launchGateway({ stateRoot, port, gatewayToken, pluginConfig });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

const agents = (pluginConfig.agents ?? {}) as Record<string, { token?: string; name?: string }>;
const [agentId, agent] = Object.entries(agents)[0] ?? [];
const base = gateway.baseUrl;
// The running world says where it is served and what it is (seed 001: start returns runtime details
// as data); this only prints them.
const status = (await (await fetch(`${base}/world/api/status`)).json()) as {
  world: { name: string; sceneHash: string };
  endpoints: { web: string; status: string; aicBase: string; openapi: string };
};
const { endpoints } = status;
console.log(`
OpenClawWorld is up (gateway ready in ${(gateway.startupMs / 1000).toFixed(1)} s, pid ${gateway.pid}).

  World:        ${status.world.name} (scene ${status.world.sceneHash})
  Web client:   ${base}${endpoints.web}
  World status: ${base}${endpoints.status}
  AIC base URL: ${base}${endpoints.aicBase}   (OpenAPI: ${base}${endpoints.openapi})
  Operator:     ${base}/openclawworld/admin/{status,save,checkpoints} (gateway token)
${
  agentId && agent?.token
    ? `  AIC agent:    ${agentId}${agent.name ? ` ("${agent.name}")` : ""}, Authorization: Bearer ${agent.token}
    curl -s -X POST ${base}/aic/v0.1/join -H 'Authorization: Bearer ${agent.token}' -H 'Content-Type: application/json' -d '{"agentId":"${agentId}","roomId":"lobby"}'
    curl -s -X POST ${base}/aic/v0.1/observe -H 'Authorization: Bearer ${agent.token}' -H 'Content-Type: application/json' -d '{"agentId":"${agentId}","roomId":"lobby","radius":200,"detail":"full"}'`
    : "  AIC agents:   none configured (add plugin config agents.<id>.token)"
}
  Gateway token${generatedToken ? " (generated; set OPENCLAW_GATEWAY_TOKEN to choose one)" : ""}: ${gateway.gatewayToken}
    curl -s -X POST ${base}/tools/invoke -H 'Authorization: Bearer ${gateway.gatewayToken}' -H 'Content-Type: application/json' -d '{"tool":"ocw_status","args":{}}'
  Gateway log:  ${gateway.logFile}

Press Ctrl-C to stop.`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the gateway ...`);
  await gateway.stop();
  console.log("Stopped.");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
gateway.child.once("exit", (code) => {
  if (stopping) return;
  console.error(`The gateway exited unexpectedly (code ${code}); see ${gateway.logFile}`);
  process.exit(1);
});
