// The operator's actions on the live host, for the admin route (src/http/operator-routes.ts).
import type { OperatorActions } from "../http/operator-routes.ts";
import {
  closeRun,
  createCheckpoint,
  currentSnapshot,
  getRun,
  labelRun,
  listCheckpoints,
  listNotes,
  listRuns,
  loadSnapshot,
  OperatorError,
  removeNote,
  restoreCheckpoint,
  saveNow,
  startRun,
} from "../runtime/operator.ts";
import { agentEntityId } from "../world/ids.ts";
import { agentAccess, agentAccessList } from "./access.ts";
import { drawnLooks } from "./adapters.ts";
import { clusterStatus } from "./cluster-host.ts";
import { followLinksOf } from "./follow-desk.ts";
import type { WorldHost } from "./host.ts";
import { OpenedExports, ReplayDesk, replayRead } from "./replay-desk.ts";
import { ReplayLinks } from "./replay-link.ts";
import { operatorStatus } from "./status.ts";
import { listWakeTargets, removeWakeTarget, setWakeTarget } from "./wake-targets.ts";
import { WorldReloads } from "./world-reloads.ts";

const NO_LOG = { info: () => {}, warn: () => {}, error: () => {} };

export function operatorActions(host: WorldHost): OperatorActions {
  return {
    status: async () =>
      host.cluster
        ? { ...operatorStatus(host), cluster: await clusterStatus(host.cluster) }
        : operatorStatus(host),
    snapshot: () => currentSnapshot(host),
    save: () => saveNow(host),
    listCheckpoints: () => listCheckpoints(host),
    createCheckpoint: (label) => createCheckpoint(host, label),
    restoreCheckpoint: (label) => restoreCheckpoint(host, label),
    load: (snapshot) => loadSnapshot(host, snapshot),
    notes: () => listNotes(host),
    removeNote: (body) => removeNote(host, body),
    access: (origin, agentId) =>
      agentId === undefined
        ? { agents: agentAccessList(host.config, origin) }
        : agentAccess(host.config, origin, agentId),
    listRuns: () => listRuns(host),
    startRun: (label) => startRun(host, label),
    getRun: (id) => getRun(host, id),
    labelRun: (id, label) => labelRun(host, id, label),
    closeRun: (id) => closeRun(host, id),
    wakeTargets: () => listWakeTargets(host),
    setWakeTarget: (agentId, body) => setWakeTarget(host, agentId, body),
    removeWakeTarget: (agentId) => removeWakeTarget(host, agentId),
    replay: (route, query) => replayRead(deskFor(host, query), route, query),
    replayOpen: async (document, origin) => {
      const opened = await openReplayFile(host, document);
      const link = linksOf(host).mint(origin);
      return { ...opened, link: { ...link, url: `${link.url}&file=${opened.file}` } };
    },
    replayLink: (origin) => linksOf(host).mint(origin),
    followLink: (origin, body) => {
      const { agentId, hours } = (body ?? {}) as { agentId?: unknown; hours?: unknown };
      const known = typeof agentId === "string" ? followable(host, agentId) : undefined;
      if (!known)
        throw new OperatorError(
          404,
          "not_found",
          `no agent ${JSON.stringify(agentId)} in this world's config`,
        );
      if (hours !== undefined && typeof hours !== "number")
        throw new OperatorError(400, "bad_request", "hours must be a number");
      return followLinksOf(host).mint(known, origin, hours === undefined ? undefined : hours * 3_600_000);
    },
    followLinks: (agentId) => ({ links: followLinksOf(host).list(agentId) }),
    reloadWorld: async () => {
      const outcome = await (host.reloads ?? new WorldReloads(host, NO_LOG)).reload("operator");
      if (outcome.status !== "refused") return outcome;
      throw Object.assign(new OperatorError(409, "conflict", `world reload refused: ${outcome.message}`), {
        details: outcome,
      });
    },
    followRevoke: (body) => {
      const { agentId, linkId } = (body ?? {}) as { agentId?: unknown; linkId?: unknown };
      if (typeof agentId !== "string" || (linkId !== undefined && typeof linkId !== "string"))
        throw new OperatorError(400, "bad_request", "agentId (and optionally linkId) must be strings");
      return followLinksOf(host).revoke(agentId, linkId);
    },
  };
}

const desks = new WeakMap<WorldHost, ReplayDesk>();
const opened = new WeakMap<WorldHost, OpenedExports>();

/** Files opened for replay on this host (replay.ts `OpenedExports`). */
export function openedOf(host: WorldHost): OpenedExports {
  let files = opened.get(host);
  if (!files) {
    files = new OpenedExports();
    opened.set(host, files);
  }
  return files;
}

/** Opens a replay file here (the operator's CLI and route, the replay page's upload): a stretch of
 * this world, in the scene it runs or one its history kept from before a live reload. */
export function openReplayFile(host: WorldHost, document: unknown) {
  return openedOf(host).open(host.definition, document, (scene) => host.history?.definitionFor(scene));
}

/** The desk a replay read names: an opened file (`file`), or the host's own history. */
export function deskFor(host: WorldHost, query: URLSearchParams): ReplayDesk {
  const file = query.get("file");
  return file ? openedOf(host).desk(file) : deskOf(host);
}
const links = new WeakMap<WorldHost, ReplayLinks>();

/** The host's replay desk over its history (refused when it keeps none). */
export function deskOf(host: WorldHost): ReplayDesk {
  let desk = desks.get(host);
  if (!desk) {
    const history = host.history;
    const store = host.store;
    if (!history || !store)
      throw new OperatorError(
        409,
        "conflict",
        "this world keeps no replay history (no store, or replay.enabled is false)",
      );
    desk = new ReplayDesk(
      host.definition,
      history,
      () => ({ runs: store.runs(), checkpoints: store.checkpoints() }),
      drawnLooks(host),
    );
    desks.set(host, desk);
  }
  return desk;
}

export function linksOf(host: WorldHost): ReplayLinks {
  let kept = links.get(host);
  if (!kept) {
    kept = new ReplayLinks();
    links.set(host, kept);
  }
  return kept;
}

/** An agent the follow page can follow: an AIC agent, a resident or a gateway agent this world knows
 * by its config (its id back), or undefined. */
function followable(host: WorldHost, agentId: string): string | undefined {
  const { config } = host;
  if (config.agents[agentId] || config.residents[agentId] || config.wakeTargets[agentId]) return agentId;
  return host.runtime.world.getEntity(agentEntityId(agentId)) ? agentId : undefined;
}
