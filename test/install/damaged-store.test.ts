// A damaged database header on a real gateway (issue #30): ten acknowledged chat markers, the gateway
// stopped, 16 bytes of the store's header scrambled, the gateway started again on the same state.
// Every marker is back and the operator status names the problem. Two things made an earlier try see
// no damage at all, and this test checks both before it damages anything: the file must be the one
// the gateway opens (its operator status names it), and no process may still hold it open (the
// gateway's launcher may respawn the gateway as its child: a SIGKILL of the launcher leaves that
// child running, and it writes the store again after the damage). After a clean stop the write-ahead
// log is folded into the file and removed, so the header read at start is the damaged one.
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, type LaunchedGateway, launchGateway, randomToken } from "../../scripts/lib/gateway.ts";

const AGENT = "agent_marker";
const agentToken = randomToken();
const gatewayToken = randomToken();
let stateRoot: string | undefined;
let live: LaunchedGateway | undefined;

afterAll(async () => {
  await live?.stop();
  if (stateRoot) await rm(stateRoot, { recursive: true, force: true });
});

async function launch(): Promise<LaunchedGateway> {
  return launchGateway({
    stateRoot: stateRoot!,
    port: await freePort(),
    gatewayToken,
    pluginConfig: {
      agents: { [AGENT]: { token: agentToken, name: "Marker" } },
      // Ten markers in a row; the limiter is not what this test is about.
      rateLimits: { classes: { chatSend: { perSec: 50, burst: 50 } } },
    },
  });
}

async function aic(endpoint: string, body: Record<string, unknown>) {
  const res = await fetch(`${live!.baseUrl}/aic/v0.1/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${agentToken}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function operatorStatus(): Promise<{
  durability: { file: string; problems: string[]; recovery: { problems: string[] } };
}> {
  const res = await fetch(`${live!.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gatewayToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: never }).data;
}

/** Processes of ours that hold `file` open (Linux /proc). */
function holdersOf(file: string): number[] {
  const holders: number[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's, or gone
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === file) {
          holders.push(Number(pid));
          break;
        }
      } catch {
        // closed meanwhile
      }
    }
  }
  return holders;
}

function scramble(file: string, offset: number, length: number): void {
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.from(Array.from({ length }, (_, i) => (i * 151 + 77) & 0xff)), 0, length, offset);
  closeSync(fd);
}

describe("a damaged store header on a real gateway", () => {
  it("is salvaged: every acknowledged marker is back, and the operator status says what happened", {
    timeout: 600_000,
  }, async () => {
    stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-damaged-"));
    live = await launch();
    expect((await aic("join", { agentId: AGENT, roomId: "lobby" })).status).toBe(200);
    const run = Date.now().toString(36);
    const markers = Array.from({ length: 10 }, (_, i) => `marker ${run} ${i} acknowledged`);
    for (const [i, message] of markers.entries()) {
      const said = await aic("chatSend", {
        agentId: AGENT,
        roomId: "lobby",
        txId: `tx_${run}_marker_${i}`,
        channel: "global",
        message,
      });
      expect(said.status, said.text).toBe(200);
    }
    const file = realpathSync((await operatorStatus()).durability.file);
    expect(file.startsWith(realpathSync(stateRoot))).toBe(true);
    const gatewayPids = holdersOf(file);
    expect(gatewayPids.length).toBeGreaterThan(0);

    await live.stop();
    live = undefined;
    // The launcher forwards SIGTERM to a respawned gateway; every holder must be gone.
    expect(holdersOf(file)).toEqual([]);
    for (const pid of gatewayPids) expect(existsSync(`/proc/${pid}`)).toBe(false);
    // The log was folded into the file: the header the next start reads is the file's own.
    expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0);
    scramble(file, 16, 16);

    live = await launch();
    const status = await operatorStatus();
    expect(realpathSync(status.durability.file)).toBe(file);
    const problems = status.durability.problems.join("\n");
    expect(problems).toMatch(/is not usable .* kept it at .*damaged/);
    expect(problems).toMatch(/salvaged \d+ log rows, \d+ snapshots/);
    const heard = await aic("chatObserve", { agentId: AGENT, roomId: "lobby", windowSec: 300 });
    expect(heard.status, heard.text).toBe(200);
    const messages = (JSON.parse(heard.text).data.messages as { message: string }[]).map((m) => m.message);
    expect(markers.filter((m) => !messages.includes(m))).toEqual([]);
  });
});
