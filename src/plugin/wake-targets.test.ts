// The operator's wake targets on a real host with a store: checked (agent, shape, URL policy),
// kept in the world's store across a restart, shown without secrets, removed.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { resolveConfig } from "../config/config.ts";
import { createHost } from "./host.ts";
import { operatorStatus } from "./status.ts";
import {
  attachRemoteResidents,
  listWakeTargets,
  removeWakeTarget,
  setWakeTarget,
  startRemoteResidents,
} from "./wake-targets.ts";

const quiet = { info() {}, warn() {}, error() {} };
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const CONFIG = {
  agents: { friend: { token: "friend-token-0123456789" }, stranger: {} },
  wakeDelivery: { allowedHosts: ["127.0.0.1"], allowPrivateNetworks: true },
};
const TARGET = {
  target: { kind: "webhook", url: "http://127.0.0.1:9/wake", secret: "x".repeat(32) },
};

async function open(dir: string, raw: Record<string, unknown> = CONFIG) {
  const host = await createHost({ config: resolveConfig(raw), logger: quiet, stateDir: dir });
  host.aic = new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const talk = { starts: [], maxTurnsPerHour: 0, replying: new Set<string>() };
  attachRemoteResidents(host, quiet, { starts: [], maxTurnsPerHour: 10 }, talk, () => new Set());
  await startRemoteResidents(host);
  const close = async () => {
    await host.remoteResidents?.stop();
    host.runtime.stop();
    host.store?.close();
  };
  cleanup.push(close);
  return { host, close };
}

describe("operator wake targets", () => {
  it("sets a target, keeps it across a restart without showing its secret, and removes it", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-wake-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await open(dir);
    const shown = await setWakeTarget(first.host, "friend", TARGET);
    expect(shown).toMatchObject({ agentId: "friend", target: { kind: "webhook", secret: "(set)" } });
    expect(JSON.stringify(listWakeTargets(first.host))).not.toContain("x".repeat(32));
    expect(operatorStatus(first.host).remoteResidents?.residents).toMatchObject([
      { agentId: "friend", target: { kind: "webhook", url: "http://127.0.0.1:9" } },
    ]);
    await first.close();

    const second = await open(dir);
    expect(listWakeTargets(second.host).targets.map((t) => t.agentId)).toEqual(["friend"]);
    await removeWakeTarget(second.host, "friend");
    await second.close();

    const third = await open(dir);
    expect(listWakeTargets(third.host).targets).toEqual([]);
  });

  it("refuses an unknown or tokenless agent, a malformed target and a URL off the allow-list", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-wake-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const { host } = await open(dir);
    await expect(setWakeTarget(host, "nobody", TARGET)).rejects.toMatchObject({ status: 404 });
    await expect(setWakeTarget(host, "stranger", TARGET)).rejects.toMatchObject({ status: 404 });
    await expect(setWakeTarget(host, "friend", { target: { kind: "webhook" } })).rejects.toMatchObject({
      status: 400,
      code: "bad_request",
    });
    await expect(
      setWakeTarget(host, "friend", { target: { ...TARGET.target, url: "http://10.9.9.9/w" } }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/allowedHosts/) });
    await expect(removeWakeTarget(host, "friend")).rejects.toMatchObject({ status: 404 });
  });

  it("refuses in config a wake target for an agent that is not an AIC agent with a token", () => {
    expect(() => resolveConfig({ wakeTargets: { ghost: TARGET } })).toThrow(/not an AIC agent/);
  });
});
