// The browsers' fan-out process in a real gateway (web.fanout: "process"), loaded from the staged
// plugin's built dist/ like an installed one: the gateway forks dist/fanout-child.js, hands each
// browser's socket to it after the upgrade, and starts it again when it is killed. A gateway of its
// own: the shared e2e gateway serves its browsers inline. One test drives real browsers (Debian
// chromium) through the child; the child's work shows on the gateway's metrics endpoint.
import { readdirSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  freeTileNear,
  launchBrowser,
  lobbyBlocked,
  me,
  ocw,
  openPlayer,
  until,
  walkTo,
} from "../support/browser.ts";
import { startGateway, type TestGateway } from "../support/gateway.ts";
import { RawWebSocket } from "../support/raw-socket.ts";
import { joinWs, type TextFrame } from "../support/ws-client.ts";

let gw: TestGateway;
let wsUrl: string;
let port: number;

beforeAll(async () => {
  gw = await startGateway({
    pluginConfig: { web: { fanout: "process", maxConnections: 5, maxConnectionsPerAddress: 5 } },
  });
  port = Number(new URL(gw.baseUrl).port);
  wsUrl = `${gw.baseUrl.replace(/^http/, "ws")}/world/ws`;
  // The world service starts after the gateway listens, and the child after it; until the child
  // serves, upgrades are refused 503 (a browser retries).
  await until(
    "the fan-out process to serve",
    async () => (await metric("openclawworld_fanout_up").catch(() => 0)) === 1,
    180_000,
  );
}, 400_000);

afterAll(async () => {
  await gw?.stop();
});

/** Pids of the gateway's fan-out children (by their command line, under the gateway's pid). */
function fanoutChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!cmdline.includes("fanout-child.js")) continue;
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      if (ppid === gw.pid) pids.push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  return pids;
}

/** A series' value (name with its labels, as the endpoint prints them); NaN when it is absent. */
async function metric(series: string): Promise<number> {
  return (await metrics())(series);
}

async function metrics(): Promise<(series: string) => number> {
  const text = await (await fetch(`${gw.baseUrl}/world/metrics`)).text();
  const lines = text.split("\n");
  return (series) => {
    const line = lines.find((l) => l.startsWith(`${series} `));
    return line ? Number(line.slice(series.length + 1)) : Number.NaN;
  };
}

/** Joins with a resume token, retrying while a new child starts (the upgrade is refused 503 until
 * it serves), as a browser does. */
async function resume(name: string, resumeToken: string): Promise<Awaited<ReturnType<typeof joinWs>>> {
  return until(
    `${name} to resume`,
    () => joinWs(wsUrl, { name, resumeToken }).catch(() => undefined),
    30_000,
  );
}

describe("web.fanout: process, in a real gateway", () => {
  it("the gateway forks the built child and a browser is served by it", async () => {
    expect(fanoutChildren()).toHaveLength(1);
    const { ws, welcome } = await joinWs(wsUrl, { name: "Forked" });
    expect(welcome.type).toBe("welcome");
    ws.close();
    expect(await metric("openclawworld_fanout_up")).toBe(1);
  });

  it("real browsers play through the child, and its work shows on the metrics endpoint", async () => {
    const CONNECTED = 'openclawworld_ws_connections{state="connected"}';
    const PATCHES = 'openclawworld_patch_duration_seconds_count{phase="work"}';
    const CPU = 'openclawworld_fanout_cpu_seconds_total{mode="user"}';
    const LAG = "openclawworld_fanout_ipc_lag_seconds";
    // The first case's socket is closed; the child reports its closing within a second or two.
    const first = await until("no browser connected yet", async () => {
      const m = await metrics();
      return !(m(CONNECTED) > 0) && m;
    });
    // The child's own series are always there; a labelled histogram or gauge has no line until its
    // first observation (no patch may have been sent yet), which counts as 0.
    for (const series of [CPU, LAG]) expect(first(series), series).toBeGreaterThanOrEqual(0);
    const atStart = (series: string) => (Number.isNaN(first(series)) ? 0 : first(series));
    const blocked = await lobbyBlocked(gw.baseUrl);
    const browser = await launchBrowser();
    try {
      const ann = await openPlayer(browser, gw.baseUrl, "Ann");
      const ben = await openPlayer(browser, gw.baseUrl, "Ben");
      const benId = await ocw<string>(ben.page, "entityId");
      const dest = freeTileNear(await me(ben.page), blocked);
      await walkTo(ben.page, dest.tx, dest.ty, blocked);
      await until("Ann sees Ben arrive", async () =>
        (await ocw<{ id: string; tx: number; ty: number }[]>(ann.page, "entities()")).some(
          (e) => e.id === benId && e.tx === dest.tx && e.ty === dest.ty,
        ),
      );
      // The child reports every second: its two browsers, the patches it sent them, its CPU.
      await until(
        "the child's work on the metrics endpoint",
        async () => {
          const now = await metrics();
          return (
            now(CONNECTED) >= atStart(CONNECTED) + 2 &&
            now(PATCHES) > atStart(PATCHES) &&
            now(CPU) > atStart(CPU) &&
            now(LAG) >= 0
          );
        },
        30_000,
      );
      expect(ann.consoleErrors).toEqual([]);
      expect(ben.consoleErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("frames sent with the upgrade request are not lost in the handoff", async () => {
    for (let i = 0; i < 5; i++) {
      const raw = await RawWebSocket.open(port, {}, [
        RawWebSocket.frame(0x1, JSON.stringify({ type: "join", name: `Early${i}` })),
        RawWebSocket.frame(0x1, JSON.stringify({ type: "ping", t: i })),
      ]);
      const texts = () =>
        raw
          .frames()
          .filter((f) => f.opcode === 0x1)
          .map((f) => JSON.parse(f.payload.toString()) as TextFrame);
      await raw.until(
        () => texts().some((f) => f.type === "welcome") && texts().some((f) => f.type === "pong"),
        15_000,
      );
      raw.destroy();
    }
  });

  it("connections far beyond the cap come and go: every slot is freed", async () => {
    for (let i = 0; i < 25; i++) {
      const raw = await RawWebSocket.open(port);
      raw.send(0x1, JSON.stringify({ type: "ping" }));
      await raw.until(() => raw.frames().some((f) => f.opcode === 0x1), 15_000);
      expect(raw.closeCode()).toBeUndefined();
      // Each round trip above outlasts the server's close of the one before: with a cap of 5, a slot
      // that is never freed fails the sixth open at the latest.
      raw.destroy();
    }
  });

  it("killed with -9, the child is started again and a browser resumes with what it was told", async () => {
    const first = await joinWs(wsUrl, { name: "Survivor" });
    const { resumeToken, entityId } = first.welcome as unknown as { resumeToken: string; entityId: string };
    first.ws.send(JSON.stringify({ type: "chat_send", channel: "global", message: "before the kill" }));
    await until("the chat's result", () =>
      first.frames.some((f) => f.type === "result" && f.for === "chat_send"),
    );
    const [pid] = fanoutChildren();
    process.kill(pid!, "SIGKILL");
    await until("the socket to drop", () => first.ws.readyState === WebSocket.CLOSED);
    await until("a new child", () => fanoutChildren().some((p) => p !== pid), 30_000);
    const again = await resume("Survivor", resumeToken);
    expect(again.welcome).toMatchObject({ type: "welcome", resumed: true, entityId });
    expect(JSON.stringify(again.welcome.history)).toContain("before the kill");
    again.ws.close();
    expect(await metric("openclawworld_fanout_restarts_total")).toBe(1);
  });

  it("a plugin config reload under a connected browser leaves one child, and the browser resumes through it", async () => {
    const mark = await gw.logMark();
    const first = await joinWs(wsUrl, { name: "Reloaded" });
    const { resumeToken, entityId } = first.welcome as unknown as { resumeToken: string; entityId: string };
    const [before] = fanoutChildren();
    expect(before).toBeDefined();
    // Any change to the plugin's config reloads it in place: the old service (and its child) stops,
    // the new one forks its own.
    const file = JSON.parse(await readFile(gw.configPath, "utf8")) as {
      plugins: { entries: Record<string, { config: { web: Record<string, unknown> } }> };
    };
    file.plugins.entries.openclawworld!.config.web.resumeGraceSec = 45;
    await writeFile(gw.configPath, `${JSON.stringify(file, null, 2)}\n`);
    await until(
      "the old child to let the browser go",
      () => first.ws.readyState === WebSocket.CLOSED,
      150_000,
    );
    await until(
      "the new instance's child, and only it",
      () => {
        const now = fanoutChildren();
        return now.length === 1 && now[0] !== before;
      },
      150_000,
    );
    const again = await resume("Reloaded", resumeToken);
    expect(again.welcome).toMatchObject({ type: "welcome", resumed: true, entityId });
    again.ws.close();
    expect(fanoutChildren()).toHaveLength(1);
    expect(await gw.log(mark)).not.toMatch(
      /still-running call|plugin host cleanup timed out|forced retirement/,
    );
  }, 320_000);

  it("chats with a txId, resent after the child was killed, are answered from the world's record: each applied once", async () => {
    const first = await joinWs(wsUrl, { name: "Resender" });
    const { resumeToken } = first.welcome as unknown as { resumeToken: string };
    const run = Date.now().toString(36);
    const chat = (n: number) => ({
      type: "chat_send",
      channel: "global",
      message: `resent ${run} ${n}`,
      txId: `tx_web_${run}_${n}`,
    });
    // One answered before the kill (its answer is then lost to the page as if the socket had died),
    // one in flight when the child dies (it may or may not have reached the world).
    first.ws.send(JSON.stringify(chat(1)));
    await until("the first chat's result", () =>
      first.frames.some((f) => f.type === "result" && f.txId === chat(1).txId),
    );
    const [pid] = fanoutChildren();
    first.ws.send(JSON.stringify(chat(2)));
    process.kill(pid!, "SIGKILL");
    await until("the socket to drop", () => first.ws.readyState === WebSocket.CLOSED);
    await until("a new child", () => fanoutChildren().some((p) => p !== pid), 30_000);
    const again = await resume("Resender", resumeToken);
    expect(again.welcome).toMatchObject({ resumed: true });
    for (const n of [1, 2]) again.ws.send(JSON.stringify(chat(n)));
    await until("both resends answered", () =>
      [1, 2].every((n) => again.frames.some((f) => f.type === "result" && f.txId === chat(n).txId)),
    );
    const answers = again.frames.filter((f) => f.type === "result" || f.type === "error");
    expect(answers.filter((f) => f.type === "error")).toEqual([]);
    again.ws.close();
    // The room's chat as a newcomer reads it: each message exactly once.
    const reader = await joinWs(wsUrl, { name: "Reader" });
    const said = JSON.stringify(reader.welcome.history);
    for (const n of [1, 2]) expect(said.split(chat(n).message).length - 1, chat(n).message).toBe(1);
    reader.ws.close();
  });

  it("a real browser's chat in flight when the child dies is sent again after the resume, and applied once", async () => {
    const browser = await launchBrowser();
    try {
      const page = await openPlayer(browser, gw.baseUrl, "Typist");
      const [pid] = fanoutChildren();
      // The child stops reading: the chat the page sends stays unanswered, then the child dies.
      process.kill(pid!, "SIGSTOP");
      const message = `in flight ${Date.now().toString(36)}`;
      expect(
        await ocw<boolean>(
          page.page,
          `send(${JSON.stringify({ type: "chat_send", channel: "global", message })})`,
        ),
      ).toBe(true);
      expect((await ocw<{ txIds: string[] }>(page.page, "unanswered()")).txIds).toHaveLength(1);
      process.kill(pid!, "SIGKILL");
      await until(
        "the page resent its chat and the world answered it",
        async () => {
          const state = await ocw<{ txIds: string[]; resent: number }>(page.page, "unanswered()");
          return state.resent >= 1 && state.txIds.length === 0;
        },
        60_000,
      );
      await until("the page shows its chat", async () =>
        (await ocw<{ message: string }[]>(page.page, "chat()")).some((l) => l.message === message),
      );
      const lines = await ocw<{ message: string }[]>(page.page, "chat()");
      expect(lines.filter((l) => l.message === message)).toHaveLength(1);
      expect(page.consoleErrors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 180_000);
});
