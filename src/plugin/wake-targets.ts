// Remote residents on the live host (docs/wake-targets.md): the configured wake targets,
// with the operator's changes (route /wake-targets, `openclaw ocw wake`) kept in the world's store so
// they outlive a restart; an answer to the operator comes after the change is stored.

import { agentEntityId } from "../aic/reads.ts";
import { type WakeTargetConfig, WakeTargetSchema } from "../config/config.ts";
import type { TalkBudget, WorldBudget } from "../residents/pacing.ts";
import { RemoteResidents } from "../residents/remote/remote-residents.ts";
import { TargetRefused } from "../residents/remote/url-policy.ts";
import { OperatorError } from "../runtime/operator.ts";
import { type SessionSpace, sessionSpace } from "../runtime/persistence.ts";
import type { RuntimeLogger } from "../runtime/world-runtime.ts";
import { agentTurnHooks, only } from "./agent-turns.ts";
import type { WorldHost } from "./host.ts";

const SCOPE = "wake-targets";
/** A stored row that removes a target the config names. */
const REMOVED = { removed: true } as const;

/** The targets in force: the config's, then the operator's changes stored in the world. */
function targetsInForce(host: WorldHost, stored: SessionSpace | undefined): Record<string, WakeTargetConfig> {
  const targets: Record<string, WakeTargetConfig> = { ...host.config.wakeTargets };
  for (const { key, value } of stored?.list() ?? []) {
    if ((value as { removed?: unknown } | null)?.removed === true) delete targets[key];
    else {
      const parsed = WakeTargetSchema.safeParse(value);
      if (parsed.success) targets[key] = parsed.data;
    }
  }
  return targets;
}

/** Makes the host's remote residents; they start (`startRemoteResidents`) once the world ticks, and
 * stop beside the gateway's residents (`attachResidents`). */
export function attachRemoteResidents(
  host: WorldHost,
  logger: RuntimeLogger,
  worldBudget: WorldBudget,
  talkBudget: TalkBudget,
  gatewayResidents: () => ReadonlySet<string>,
): RemoteResidents | undefined {
  if (!host.aic) return undefined;
  const { config } = host;
  const remotes = new RemoteResidents({
    service: host.aic,
    worldName: host.definition.name,
    delivery: config.wakeDelivery,
    nameOf: (agentId) => config.agents[agentId]?.name ?? agentId,
    worldBudget,
    talkBudget,
    otherResidents: gatewayResidents,
    logger,
    ...only(agentTurnHooks(host), "onTurnEnd"),
  });
  host.remoteResidents = remotes;
  return remotes;
}

export async function startRemoteResidents(host: WorldHost): Promise<void> {
  const stored = host.store ? sessionSpace(host.store, SCOPE) : undefined;
  await host.remoteResidents?.start(targetsInForce(host, stored));
}

/** A target as the operator sees it: its secret and hook token never leave the gateway. */
function shown(agentId: string, c: WakeTargetConfig) {
  const { target } = c;
  return {
    agentId,
    entityId: agentEntityId(agentId),
    ...c,
    target:
      target.kind === "webhook"
        ? { kind: target.kind, url: target.url, secret: "(set)" }
        : { kind: target.kind, url: target.url, agentId: target.agentId, hookToken: "(set)" },
  };
}

function remotesOf(host: WorldHost): RemoteResidents {
  if (!host.remoteResidents) throw new OperatorError(409, "conflict", "remote residents are not running");
  return host.remoteResidents;
}

export function listWakeTargets(host: WorldHost) {
  const targets = remotesOf(host).targets();
  return { targets: Object.entries(targets).map(([agentId, c]) => shown(agentId, c)) };
}

export async function setWakeTarget(host: WorldHost, agentId: string, body: unknown) {
  const remotes = remotesOf(host);
  if (!host.config.agents[agentId]?.token)
    throw new OperatorError(404, "not_found", `no AIC agent "${agentId}" with a token is configured`);
  if (host.config.residents[agentId])
    throw new OperatorError(409, "conflict", `"${agentId}" is a resident of this gateway, woken here`);
  const parsed = WakeTargetSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`);
    throw new OperatorError(400, "bad_request", `not a wake target: ${problems.join("; ")}`);
  }
  try {
    await remotes.set(agentId, parsed.data);
  } catch (error) {
    if (error instanceof TargetRefused) throw new OperatorError(400, "bad_request", error.message);
    throw error;
  }
  if (host.store) sessionSpace(host.store, SCOPE).put(agentId, parsed.data);
  return shown(agentId, parsed.data);
}

export async function removeWakeTarget(host: WorldHost, agentId: string) {
  const removed = await remotesOf(host).remove(agentId);
  if (!removed) throw new OperatorError(404, "not_found", `"${agentId}" has no wake target`);
  if (host.store) sessionSpace(host.store, SCOPE).put(agentId, REMOVED);
  return { agentId, removed: true };
}
