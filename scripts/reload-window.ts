// `npm run reload:window -- --reloads 2`: what clients see while the plugin config changes on a running
// gateway. Four clients (the world's status twice and the ocw_status tool, each every 30 ms; an AIC
// observe every 500 ms, its rate class's pace) send requests over keep-alive connections while the
// plugin config is changed RELOADS times, 16 s apart. Prints each request held over 500 ms and each
// answer that is not the plugin's; the last line is one JSON object with the figures. A gateway of its
// own, stopped and removed at the end. A refusal is counted by client, status and kind (answerKind).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { launchGateway, randomToken } from "./lib/gateway.ts";

const { values } = parseArgs({ options: { reloads: { type: "string", default: "2" } } });
const reloads = Number(values.reloads);
if (!Number.isInteger(reloads) || reloads < 1 || reloads > 20) throw new Error("--reloads must be 1..20");

const AGENT = "agent_reload_probe";
const token = randomToken();
const stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-reload-window-"));
const gw = await launchGateway({
  stateRoot,
  pluginConfig: { agents: { [AGENT]: { token, name: "Reload Probe" } } },
});
/** The observe rate class allows 2 a second (src/aic/rate-limit.ts). */
const OBSERVE_EVERY_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
const at = () => ((Date.now() - t0) / 1000).toFixed(1);
let stopped = false;
let requests = 0;
const refused: Record<string, number> = {};
const failed: Record<string, number> = {};
let heldOver500 = 0;
let longestHoldMs = 0;

const aic = (endpoint: string, body: object) =>
  fetch(`${gw.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ agentId: AGENT, roomId: "lobby", ...body }),
  });

/** A refusal as a client can act on it: "typed" carries an error code (the AIC shape, the tools'
 * JSON), "retry" says when to retry (Retry-After) and, for the AIC shape, `retryable: true`. */
function answerKind(res: Response, text: string): string {
  let code: unknown;
  let retryable: unknown;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; type?: unknown; retryable?: unknown } };
    code = body.error?.code ?? body.error?.type;
    retryable = body.error?.retryable;
  } catch {}
  const typed = typeof code === "string" ? `typed ${code}` : "untyped";
  return `${typed}${res.headers.get("retry-after") && retryable !== false ? " retry" : ""}`;
}

async function client(name: string, everyMs: number, send: () => Promise<Response>): Promise<void> {
  while (!stopped) {
    requests += 1;
    const sent = Date.now();
    try {
      const res = await send();
      const text = await res.text();
      const heldMs = Date.now() - sent;
      longestHoldMs = Math.max(longestHoldMs, heldMs);
      if (heldMs > 500) heldOver500 += 1;
      if (res.status !== 200) {
        const key = `${name} ${res.status} ${answerKind(res, text)}`;
        refused[key] = (refused[key] ?? 0) + 1;
      }
      if (heldMs > 500 || res.status !== 200)
        console.log(`t=${at()} s ${name}: ${res.status} after ${heldMs} ms`);
    } catch (error) {
      const key = `${name} ${String((error as Error).cause ?? error)}`;
      failed[key] = (failed[key] ?? 0) + 1;
      console.log(`t=${at()} s ${name}: ${key}`);
    }
    await sleep(everyMs);
  }
}

try {
  await (await aic("join", {})).arrayBuffer();
  const clients = [
    client("status", 30, () => fetch(`${gw.baseUrl}/world/api/status`)),
    client("status again", 30, () => fetch(`${gw.baseUrl}/world/api/status`)),
    client("AIC observe", OBSERVE_EVERY_MS, () => aic("observe", { radius: 16, detail: "lite" })),
    client("ocw_status", 30, () =>
      fetch(`${gw.baseUrl}/tools/invoke`, {
        method: "POST",
        headers: { authorization: `Bearer ${gw.gatewayToken}`, "content-type": "application/json" },
        body: JSON.stringify({ tool: "ocw_status", args: {} }),
      }),
    ),
  ];
  for (let i = 0; i < reloads; i++) {
    await sleep(4000);
    const file = JSON.parse(await readFile(gw.configPath, "utf8"));
    file.plugins.entries.openclawworld.config.tools = {
      perAgent: { main: { enabled: i % 2 ? ["ocw_chat_send"] : ["ocw_move_to"] } },
    };
    await writeFile(gw.configPath, `${JSON.stringify(file, null, 2)}\n`);
    console.log(`t=${at()} s plugin config changed (${i + 1} of ${reloads})`);
    await sleep(12_000);
  }
  stopped = true;
  await Promise.all(clients);
} finally {
  stopped = true;
  await gw.stop();
  await rm(stateRoot, { recursive: true, force: true });
}
console.log(JSON.stringify({ reloads, requests, heldOver500, longestHoldMs, refused, failed }));
