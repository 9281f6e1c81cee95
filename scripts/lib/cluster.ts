// Real gateways sharing a cluster room through one nats-server: how the install test
// (test/install/cluster.test.ts) and the soak (scripts/cluster-soak.ts) start them and look at
// them. One copy, so the test and the soak exercise the same configuration.

import type { ClusterResources } from "../../src/cluster/nats.ts";
import { type LogRecord, lastSequence, readLog } from "../../src/cluster/shared-log.ts";
import { type LaunchedGateway, launchGateway } from "./gateway.ts";

export interface ClusterGatewayOptions {
  natsUrl: string;
  gatewayId: string;
  stateRoot: string;
  port: number;
  gatewayToken: string;
  room: string;
  leaseTtlMs: number;
  snapshotEveryTicks: number;
  /** The world directory (default: the bundled world). */
  worldDir?: string;
  /** agentId -> its credential, the same on every gateway of the cluster. */
  agents: Record<string, { token: string; name: string }>;
  /** Aborting it while the gateway comes up (or stands by) stops it. */
  signal?: AbortSignal;
}

/** Starts a gateway in cluster mode. Resolves once it serves the room: a gateway standing by for
 * a room held elsewhere resolves only when it takes it (readiness waits for `running: true`). */
export function launchClusterGateway(options: ClusterGatewayOptions): Promise<LaunchedGateway> {
  return launchGateway({
    stateRoot: options.stateRoot,
    port: options.port,
    gatewayToken: options.gatewayToken,
    ...(options.signal ? { signal: options.signal } : {}),
    pluginConfig: {
      ...(options.worldDir ? { world: options.worldDir } : {}),
      agents: options.agents,
      rateLimits: { disabled: true },
      cluster: {
        servers: [options.natsUrl],
        gatewayId: options.gatewayId,
        publicBaseUrl: `http://127.0.0.1:${options.port}`,
        rooms: [options.room],
        leaseTtlMs: options.leaseTtlMs,
        snapshotEveryTicks: options.snapshotEveryTicks,
      },
    },
  });
}

export async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 240_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One AIC call; rejects when the gateway does not answer within `timeoutMs` (paused, killed). A
 * standby's redirect to the owner is followed once, with the agent's token (fetch would follow it
 * without: it drops the credential on a redirect to another origin). */
export async function aicCall(
  baseUrl: string,
  token: string,
  endpoint: string,
  body: Record<string, unknown>,
  timeoutMs = 30_000,
) {
  const signal = AbortSignal.timeout(timeoutMs);
  const send = (url: string) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      redirect: "manual",
      signal,
    });
  let res = await send(`${baseUrl}/aic/v0.1/${endpoint}`);
  const location = res.headers.get("location");
  if (res.status === 307 && location) {
    await res.body?.cancel();
    res = await send(location);
  }
  return { status: res.status, text: await res.text() };
}

export async function running(baseUrl: string): Promise<true | undefined> {
  const status = (await (
    await fetch(`${baseUrl}/world/api/status`, { signal: AbortSignal.timeout(5_000) })
  ).json()) as { running?: boolean };
  return status.running ? true : undefined;
}

export async function wholeLog(
  resources: ClusterResources,
  room: string,
): Promise<(LogRecord & { seq: number })[]> {
  const records: (LogRecord & { seq: number })[] = [];
  for await (const r of readLog(resources, room, 1, await lastSequence(resources, room))) records.push(r);
  return records;
}

/** The operator status of a gateway standing by names the owner it waits for. */
export async function standingBy(gw: { baseUrl: string; gatewayToken: string }): Promise<true | undefined> {
  const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
    signal: AbortSignal.timeout(5_000),
  });
  const text = await res.text();
  return /held elsewhere/.test(text) ? true : undefined;
}
