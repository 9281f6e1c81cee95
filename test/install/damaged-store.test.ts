// A damaged database header on a real gateway (issue #30): ten acknowledged chat markers, the gateway
// stopped, 16 bytes of the store's header scrambled, the gateway started again on the same state.
// Every marker is back and the operator status names the problem. Two things made an earlier try see
// no damage at all, and this test checks both before it damages anything: the file must be the one
// the gateway opens (its operator status names it), and no process may still hold it open (the
// gateway's launcher may respawn the gateway as its child: a SIGKILL of the launcher leaves that
// child running, and it writes the store again after the damage). After a clean stop the write-ahead
// log is folded into the file and removed, so the header read at start is the damaged one.
// A torn write-ahead log (issue #45): ten markers, the gateway killed with SIGKILL (the log is not
// folded in), the second half of the log's frames cut off, a start: every marker is back (replayed
// from the tick log's second copy beside the store) and the operator status says what the store lost.
// The torn log's test goes on with the gateway the header's test started on the salvaged store (a
// store that was damaged once is still one a crash can tear), so the file starts three gateways, not four.
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { freePort, type LaunchedGateway, launchGateway, randomToken } from "../../scripts/lib/gateway.ts";

const AGENT = "agent_marker";
const agentToken = randomToken();
const gatewayToken = randomToken();
let stateRoot: string | undefined;
let live: LaunchedGateway | undefined;

const stateRoots: string[] = [];

afterAll(async () => {
  await live?.stop();
  for (const root of stateRoots) await rm(root, { recursive: true, force: true });
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
  durability: {
    file: string;
    problems: string[];
    recovery: { problems: string[]; logLoss?: Record<string, number> };
  };
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

/** A gateway with ten (more) acknowledged chat markers: the one still running from the test before
 * if there is one (each start of a gateway costs tens of seconds), else a fresh one on a state root of
 * its own; the store file (the one the gateway opens: its operator status names it) and the processes
 * holding it. */
async function gatewayWithMarkers(): Promise<{ markers: string[]; file: string; gatewayPids: number[] }> {
  if (!live) {
    stateRoot = await mkdtemp(path.join(os.tmpdir(), "ocw-damaged-"));
    stateRoots.push(stateRoot);
    live = await launch();
  }
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
  expect(file.startsWith(realpathSync(stateRoot!))).toBe(true);
  const gatewayPids = holdersOf(file);
  expect(gatewayPids.length).toBeGreaterThan(0);
  return { markers, file, gatewayPids };
}

async function markersMissing(markers: string[]): Promise<string[]> {
  const heard = await aic("chatObserve", { agentId: AGENT, roomId: "lobby", windowSec: 300 });
  expect(heard.status, heard.text).toBe(200);
  const messages = (JSON.parse(heard.text).data.messages as { message: string }[]).map((m) => m.message);
  return markers.filter((m) => !messages.includes(m));
}

/** Cuts a write-ahead log after half of its current frames (those with the header's salts; older
 * ones past them are left from before a checkpoint and count for nothing): the newest commits go. */
function cutHalfOfWal(wal: string): { frames: number; kept: number } {
  const bytes = readFileSync(wal);
  const pageSize = bytes.readUInt32BE(8);
  const salts = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  const frameSize = 24 + pageSize;
  let frames = 0;
  for (let at = 32; at + frameSize <= bytes.length; at += frameSize, frames++) {
    if (bytes.readUInt32BE(at + 8) !== salts[0] || bytes.readUInt32BE(at + 12) !== salts[1]) break;
  }
  const kept = Math.floor(frames / 2);
  truncateSync(wal, 32 + kept * frameSize);
  return { frames, kept };
}

describe("a damaged store header on a real gateway", () => {
  it("is salvaged: every acknowledged marker is back, and the operator status says what happened", {
    timeout: 600_000,
  }, async () => {
    const { markers, file, gatewayPids } = await gatewayWithMarkers();

    await live!.stop();
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
    expect(await markersMissing(markers)).toEqual([]);
  });
});

describe("a torn write-ahead log on a real gateway (kill -9, then half the log cut off)", () => {
  it("is noticed: every acknowledged marker is back from the second copy, and the status says how much the store lost", {
    timeout: 600_000,
  }, async () => {
    const { markers, file, gatewayPids } = await gatewayWithMarkers();
    // Every process holding the store dies at once, as in a crash: nothing folds the log in.
    for (const pid of gatewayPids) process.kill(pid, "SIGKILL");
    await vi.waitFor(() => expect(holdersOf(file)).toEqual([]), { timeout: 30_000, interval: 100 });
    await live!.stop();
    live = undefined;
    const cut = cutHalfOfWal(`${file}-wal`);
    expect(cut.frames).toBeGreaterThan(1);

    live = await launch();
    const status = await operatorStatus();
    expect(realpathSync(status.durability.file)).toBe(file);
    const problems = status.durability.problems.join("\n");
    expect(problems).toMatch(/the store's log ends at tick \d+, but tick \d+ was committed/);
    expect(problems).toMatch(/its write-ahead log lost \d+ ticks at its end/);
    const loss = status.durability.recovery.logLoss!;
    expect(loss.committedTick).toBeGreaterThan(loss.storeTick!);
    expect(loss).toMatchObject({ wentBackTicks: 0 });
    console.info(
      `torn log: ${cut.kept} of ${cut.frames} frames kept; the store reached tick ${loss.storeTick}, ${loss.committedTick} was committed, ${loss.replayedFromMirror} ticks replayed from the second copy`,
    );
    expect(await markersMissing(markers)).toEqual([]);
  });
});
