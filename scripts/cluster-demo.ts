// `npm run cluster:demo`: rooms across gateways on one machine (docs/cluster.md). A local
// nats-server with JetStream on 127.0.0.1 (Debian's, as the tests use), and two real gateways in
// cluster mode sharing the bundled world: A takes the world's lease and serves it; B stands by,
// sends every caller to A (HTTP 307) and takes the world over within seconds if A dies. Everything
// lives in one throw-away directory, removed at the end. Environment:
//   OCW_PORT   port of gateway A (default 18801); B listens on the next one
//   OCW_READY_TIMEOUT_SEC, OCW_READY_STALL_SEC  how long to wait for a gateway (scripts/lib/readiness.ts)
// Ctrl-C / SIGTERM stop both gateways (standby first, so the world is not taken over on the way
// out), then NATS, and remove the directory.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { type LaunchedGateway, launchGateway, randomToken } from "./lib/gateway.ts";
import { type LaunchedNats, launchNats } from "./lib/nats-server.ts";

const portA = Number(process.env.OCW_PORT ?? 18801);
if (!Number.isInteger(portA) || portA < 1 || portA > 65534) {
  console.error(`OCW_PORT must be a TCP port below 65535, got "${process.env.OCW_PORT}"`);
  process.exit(2);
}
const root = await mkdtemp(path.join(os.tmpdir(), "ocw-cluster-demo-"));
const agentId = "agent_helper";
const agentToken = randomToken();

let stopping = false;
const starting = new AbortController();
let nats: LaunchedNats | undefined;
const gateways: LaunchedGateway[] = [];

/** Stops whatever has started, newest first (the standby before the owner), then NATS. */
async function stopAll(signal: string, exitCode = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the gateways and NATS ...`);
  starting.abort();
  // A gateway still coming up is stopped by its own launch when aborted: wait for that first.
  await main.catch(() => undefined);
  for (const gateway of [...gateways].reverse()) await gateway.stop().catch(() => undefined);
  await nats?.stop().catch(() => undefined);
  await rm(root, { recursive: true, force: true });
  console.log("Stopped.");
  process.exit(exitCode);
}

function pluginConfig(gatewayId: string, port: number): Record<string, unknown> {
  return {
    defaultRoomId: "lobby",
    agents: { [agentId]: { token: agentToken, name: "Helper Bot" } },
    cluster: {
      servers: [nats!.url],
      gatewayId,
      publicBaseUrl: `http://127.0.0.1:${port}`,
      leaseTtlMs: 3000,
    },
  };
}

async function start(gatewayId: string, port: number, standbyReady: boolean): Promise<LaunchedGateway> {
  if (starting.signal.aborted) throw new Error("stopped before it started");
  console.log(`Starting gateway ${gatewayId} on 127.0.0.1:${port} ...`);
  const gateway = await launchGateway({
    stateRoot: path.join(root, gatewayId),
    port,
    gatewayToken: randomToken(),
    pluginConfig: pluginConfig(gatewayId, port),
    onWaiting: (line) => console.log(`  ... ${gatewayId}: ${line}`),
    signal: starting.signal,
    standbyReady,
  });
  gateways.push(gateway);
  gateway.child.once("exit", (code, signal) => {
    if (!stopping) console.error(`Gateway ${gatewayId} exited (${code ?? signal}); see ${gateway.logFile}`);
  });
  return gateway;
}

async function run(): Promise<void> {
  nats = await launchNats({ storeDir: path.join(root, "nats") });
  console.log(`NATS with JetStream at ${nats.url} (pid ${nats.pid})`);
  const a = await start("gw-a", portA, false);
  const b = await start("gw-b", portA + 1, true);
  const status = (await (await fetch(`${b.baseUrl}/world/api/status`)).json()) as {
    cluster?: { servedBy?: { gatewayId: string; baseUrl: string } };
  };
  const owner = status.cluster?.servedBy;
  const join = `curl -si -X POST ${b.baseUrl}/aic/v0.1/join -H 'Authorization: Bearer ${agentToken}' -H 'Content-Type: application/json' -d '{"agentId":"${agentId}","roomId":"lobby"}'`;
  console.log(`
Two gateways, one world (state in ${root}, removed when the demo stops):

  Gateway gw-a: ${a.baseUrl}   pid ${a.pid}, operator token ${a.gatewayToken}
  Gateway gw-b: ${b.baseUrl}   pid ${b.pid}, operator token ${b.gatewayToken}
  Serving now:  ${owner ? `${owner.gatewayId} (${owner.baseUrl}); the other stands by` : "(not known yet)"}

  Web client:   ${a.baseUrl}/world/  or  ${b.baseUrl}/world/  (the standby redirects to the owner)
  Directory:    ${a.baseUrl}/world/api/status  (cluster.servedBy), and the operator status:
    curl -s ${a.baseUrl}/openclawworld/admin/status -H 'Authorization: Bearer ${a.gatewayToken}'
  AIC agent:    ${agentId}, Authorization: Bearer ${agentToken}; asked at the standby, answered 307:
    ${join}
    (add -L --location-trusted to follow it with the token)
  Failover:     kill -9 ${a.pid}   (gw-b serves the world a few seconds later, at most about one
                lease, 3 s, after gw-a's last renewal; open ${b.baseUrl}/world/ again)
  Logs:         ${a.logFile}
                ${b.logFile}

Press Ctrl-C to stop.`);
}

const main = run();
process.on("SIGINT", () => void stopAll("SIGINT"));
process.on("SIGTERM", () => void stopAll("SIGTERM"));
main.catch(async (error: unknown) => {
  if (stopping) return;
  console.error(error instanceof Error ? error.message : String(error));
  await stopAll("error", 1);
});
