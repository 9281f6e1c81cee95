// Puts the residents' scheduler (src/residents) around a host whose config names residents: turns
// run in this gateway's agent loop (resident-turns.ts), and a resident without a model sleeps.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { allowedWorldTools } from "../config/tool-policy.ts";
import { PROMPT_LIMITS } from "../residents/prompt.ts";
import { placesFrom } from "../residents/resident-places.ts";
import { ResidentScheduler } from "../residents/scheduler.ts";
import type { RuntimeLogger } from "../runtime/world-runtime.ts";
import { agentTurnHooks, only } from "./agent-turns.ts";
import type { WorldHost } from "./host.ts";
import {
  embeddedTurnRunner,
  prepareTurns,
  readiedInProcess,
  readyOnce,
  residentAsleepHint,
  residentAsleepReason,
} from "./resident-turns.ts";
import { attachRemoteResidents } from "./wake-targets.ts";

export function attachResidents(
  host: WorldHost,
  logger: RuntimeLogger,
  runtime: OpenClawPluginApi["runtime"],
): void {
  const { config } = host;
  // One world-wide budget above the gateway's residents and the remote ones (wake targets).
  const worldBudget = { starts: [], maxTurnsPerHour: config.residentBudget.maxTurnsPerHour };
  // One talk budget too: remote residents talk with the gateway's, and with each other, within it.
  const talkBudget = {
    starts: [],
    maxTurnsPerHour: config.residentBudget.talkTurnsPerHour,
    pairIntervalMs: config.residentBudget.talkPairIntervalSec * 1000,
    replying: new Set<string>(),
  };
  const remotes = attachRemoteResidents(
    host,
    logger,
    worldBudget,
    talkBudget,
    () => host.residents?.residentIdSet() ?? new Set(),
  );
  // The gateway's residents and the remote ones stop side by side: each waits up to its grace for a
  // cancelled turn, and two such waits in a row, with the rest of a stop, came near the 5 s the
  // gateway gives a service's stop in a reload (docs/operating.md).
  host.closers.push(async () => {
    await Promise.all([host.residents?.stop(), remotes?.stop()]);
  });
  if (!host.aic || Object.keys(config.residents).length === 0) return;
  const aic = host.aic;
  // A resident that may walk is told its room's places (a tile each) so "take me to the café" is one
  // ocw_move_to, and those a portal away; the places of a room are the same all along, found once.
  const places = new Map<string, ReturnType<typeof placesFrom>>();
  const placesIn = (roomId: string) => {
    let found = places.get(roomId);
    if (!found) {
      found = placesFrom(aic.reads.definition, roomId, PROMPT_LIMITS.places);
      places.set(roomId, found);
    }
    return found;
  };
  const scheduler = new ResidentScheduler({
    service: aic,
    residents: config.residents,
    worldBudget,
    talkBudget,
    placesFor: (agentId, roomId) =>
      allowedWorldTools(config.tools, agentId).includes("ocw_move_to") ? placesIn(roomId) : undefined,
    mayLead: (agentId) => allowedWorldTools(config.tools, agentId).includes("ocw_lead"),
    asleepHint: (agentId) => residentAsleepHint(runtime.config.current(), agentId),
    ...(remotes ? { otherResidents: () => remotes.ids() } : {}),
    runTurn: embeddedTurnRunner(runtime, (agentId) => allowedWorldTools(config.tools, agentId)),
    prepareTurns: (agentId, signal) =>
      readyOnce(readiedInProcess(), agentId, () =>
        prepareTurns(runtime, agentId, allowedWorldTools(config.tools, agentId), signal),
      ),
    asleepReason: (agentId) => residentAsleepReason(runtime.config.current(), agentId),
    logger,
    ...only(agentTurnHooks(host), "onTurnEnd"),
  });
  host.residents = scheduler;
}
