// Starts ONE real OpenClaw gateway with this plugin for the whole e2e run and stops it at the end,
// with the scripted model server (test/support/scripted-model.ts) as every agent's model, so tests can
// drive real agent turns through the gateway's POST /v1/chat/completions.

import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { randomToken } from "../../scripts/lib/gateway.ts";
import { deepMerge } from "../../scripts/lib/merge.ts";
import { startGateway } from "../support/gateway.ts";
import { FORMAT_PROVIDERS, MODEL_ID, startScriptedModel } from "../support/scripted-model.ts";
import { until } from "../support/wait.ts";
import {
  E2E_AGENT_POLICY,
  E2E_FORMAT_CALLERS,
  E2E_FORMAT_RESIDENTS,
  E2E_GARDENER,
  E2E_PLAYER,
  E2E_RESIDENT,
  E2E_TALK_TURNS_PER_HOUR,
  E2E_TOWNSFOLK,
  E2E_WARDEN,
  E2E_WARDEN_CALLERS,
  type E2EGateway,
} from "./fixtures.ts";

function e2eFanout(): { fanout?: "process" | "inline" } {
  const fanout = process.env.OCW_E2E_FANOUT;
  if (fanout === undefined || fanout === "") return {};
  if (fanout !== "process" && fanout !== "inline")
    throw new Error("OCW_E2E_FANOUT must be process or inline");
  return { fanout };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const agents = {
    agent_helper: { token: randomToken(), name: "Helper Bot" },
    agent_other: { token: randomToken(), name: "Other Bot" },
    // Only the heartbeat e2e uses it, so its deltas are not disturbed by other files' agents' actions.
    agent_beat: { token: randomToken(), name: "Beat Bot" },
    // Only the world signals e2e uses it (it walks to the reading corner and speaks there).
    agent_signals: { token: randomToken(), name: "Signals Bot" },
    // Only the memory e2e uses these two (joining another file's agent would change its join cursor).
    agent_memo: { token: randomToken(), name: "Memo Bot" },
    agent_memo_peer: { token: randomToken(), name: "Memo Peer" },
    // Only the town e2e uses these two (they live in the town, away from the other files' lobby).
    agent_town: { token: randomToken(), name: "Town Bot" },
    agent_town_peer: { token: randomToken(), name: "Town Peer" },
    // Only the doors e2e uses it (it opens streams up to its bound).
    agent_doors: { token: randomToken(), name: "Doors Bot" },
    // Only the wake targets e2e uses it: an agent outside the gateway, woken by a webhook.
    agent_wake: { token: randomToken(), name: "Faraway Bot" },
    // Only the replay e2e uses it (it walks and talks in a stretch the replay page then shows).
    agent_replay: { token: randomToken(), name: "Replay Bot" },
    // Only the follow e2e uses these: one its owner follows, the other whose token must not open it.
    agent_follow: { token: randomToken(), name: "Follow Bot" },
    agent_follow_other: { token: randomToken(), name: "Other Bot" },
    // Only the emote e2e uses these two (one gestures, the other stands near and hears it).
    agent_emote: { token: randomToken(), name: "Emote Bot" },
    agent_emote_peer: { token: randomToken(), name: "Emote Peer" },
    // Only the game table e2e uses these two (they play four-in-a-row at the town café's table).
    agent_game_r: { token: randomToken(), name: "Game Mara" },
    agent_game_y: { token: randomToken(), name: "Game Bob" },
    // Only the garden e2e uses it (it waters a plot in the garden's flower bed).
    agent_garden: { token: randomToken(), name: "Garden Bot" },
    // Only the resident-game e2e uses it (it plays a game against the resident Wren).
    agent_wren_p: { token: randomToken(), name: "Pia Player" },
    // Only the creatures e2e uses it (it looks at the lobby's cat from the plaza).
    agent_cat: { token: randomToken(), name: "Cat Watcher" },
    // Only the townsfolk e2e uses it (it looks at where the town's residents stand).
    agent_tf: { token: randomToken(), name: "Town Watcher" },
    // Only the walk-with e2e uses it (it sees the Guide home again, from the lobby).
    agent_lead: { token: randomToken(), name: "Lead Watcher" },
    // Only the resident-robustness e2e uses these (people who call the Warden).
    ...(Object.fromEntries(
      E2E_WARDEN_CALLERS.map((id, i) => [id, { token: randomToken(), name: `Caller ${"ABCD"[i]}` }]),
    ) as Record<(typeof E2E_WARDEN_CALLERS)[number], { token: string; name: string }>),
    // Only the resident-models e2e uses these (people who call the Herald and the Sibyl).
    ...(Object.fromEntries(
      E2E_FORMAT_CALLERS.map((id, i) => [id, { token: randomToken(), name: `Visitor ${"AB"[i]}` }]),
    ) as Record<(typeof E2E_FORMAT_CALLERS)[number], { token: string; name: string }>),
  };
  const { anthropic, gemini, failing } = E2E_FORMAT_RESIDENTS;
  const model = await startScriptedModel();
  const gateway = await startGateway({
    // A closed tab leaves after 10 s instead of 30 (the default): the grace period is what the
    // web-play test waits out to see a departure announced.
    pluginConfig: {
      agents,
      tools: { perAgent: E2E_AGENT_POLICY },
      // OCW_E2E_FANOUT=process|inline runs the whole suite's browsers with that web.fanout
      // (default: the plugin's default).
      web: { resumeGraceSec: 10, ...e2eFanout() },
      // The wake targets e2e's receiver listens on loopback; short limits keep its failures quick.
      wakeDelivery: {
        allowedHosts: ["127.0.0.1"],
        allowPrivateNetworks: true,
        timeoutMs: 1000,
        maxAttempts: 3,
        retryBaseMs: 100,
        breakerFailures: 3,
        breakerCooldownMs: 2000,
      },
      residents: {
        [E2E_RESIDENT.agentId]: E2E_RESIDENT.config,
        [E2E_WARDEN.agentId]: E2E_WARDEN.config,
        [anthropic.agentId]: anthropic.config,
        [gemini.agentId]: gemini.config,
        [failing.agentId]: failing.config,
        [E2E_TOWNSFOLK.tilly.agentId]: E2E_TOWNSFOLK.tilly.config,
        [E2E_TOWNSFOLK.bram.agentId]: E2E_TOWNSFOLK.bram.config,
        [E2E_TOWNSFOLK.guide.agentId]: E2E_TOWNSFOLK.guide.config,
        [E2E_PLAYER.agentId]: E2E_PLAYER.config,
        [E2E_GARDENER.agentId]: E2E_GARDENER.config,
      },
      residentBudget: { talkTurnsPerHour: E2E_TALK_TURNS_PER_HOUR },
    },
    agentIds: Object.keys(E2E_AGENT_POLICY),
    gatewayConfig: deepMerge(model.providerConfig(), {
      gateway: { http: { endpoints: { chatCompletions: { enabled: true } } } },
      // No recurring heartbeat turns in the background of the run: turns happen when a test asks.
      agents: {
        defaults: { heartbeat: { every: "0m" } },
        // The resident-models e2e: these residents' models speak Anthropic messages and Gemini.
        entries: {
          [anthropic.agentId]: { model: `${FORMAT_PROVIDERS.anthropic}/${MODEL_ID}` },
          [gemini.agentId]: { model: `${FORMAT_PROVIDERS.gemini}/${MODEL_ID}` },
          [failing.agentId]: { model: `${FORMAT_PROVIDERS.gemini}/${MODEL_ID}` },
        },
      },
    }),
  }).catch(async (error: unknown) => {
    await model.close();
    throw error;
  });
  const provided: E2EGateway = {
    baseUrl: gateway.baseUrl,
    gatewayToken: gateway.gatewayToken,
    logFile: gateway.logFile,
    startupMs: gateway.startupMs,
    pid: gateway.pid,
    modelOrigin: model.origin,
    // Every HTTP agent above, by its token (a file reads its own with gateway().agents[id]).
    agents: Object.fromEntries(Object.entries(agents).map(([id, { token }]) => [id, { token }])),
  };
  project.provide("gateway", provided);
  const stop = async () => {
    await gateway.stop();
    await model.close();
  };
  await filesMayStart().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return stop;
}

/** `npm test` starts this gateway while the files that reload a gateway's plugin config still run (its
 * start is ~30 s of CPU at a lower priority than theirs, and ~1.5 minutes of waiting taken off the
 * critical path); the e2e files begin once they are done, when `OCW_E2E_AFTER` (a file) exists. */
async function filesMayStart(): Promise<void> {
  const after = process.env.OCW_E2E_AFTER;
  if (!after || existsSync(after)) return;
  console.log(`e2e gateway up; its files start when ${after} exists (the reloads files are done)`);
  await until(`${after} (the reloads files done)`, () => existsSync(after), {
    timeoutMs: 40 * 60_000,
    everyMs: 500,
  });
}
