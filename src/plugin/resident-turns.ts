// How the world wakes a resident inside this gateway: one turn of the gateway's own agent loop through
// the plugin SDK runtime (`api.runtime.agent.runEmbeddedAgent`), in the resident's own session, with
// its own model, tools and before_tool_call policy. Why this call and not a system event plus a
// heartbeat request: docs/aic/v0.1/DECISIONS.md ("Residents are woken by runEmbeddedAgent").
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { GatewayBusy, type RunTurn, SessionStuck } from "../residents/scheduler.ts";
import { turnBindings } from "../tools/turn-binding.ts";

type PluginRuntime = OpenClawPluginApi["runtime"];
type EmbeddedRunParams = Parameters<PluginRuntime["agent"]["runEmbeddedAgent"]>[0];

/** The session a resident's turns share for a while (the scheduler names a fresh one every
 * `sessionTurns` turns), so it remembers its recent turns and its requests stay bounded. */
export function residentSessionKey(agentId: string, session: string): string {
  return `agent:${agentId}:openclawworld:${session}`;
}

/** The options that keep a resident's turn small: it is given only the world tools its policy lets it
 * call (not every enabled plugin's tools: 25,137 tokens per request and most of the gateway's
 * preparation time before this), no message tool (the world is not a channel) and no trajectory
 * file. Its workspace files (identity, persona) stay: it lives in the world as itself. */
export function residentTurnOptions(
  tools: readonly string[],
): Pick<
  EmbeddedRunParams,
  "toolsAllow" | "disableMessageTool" | "disableTrajectory" | "terminalReplyExpectation"
> & { disableToolSearch: true } {
  return {
    toolsAllow: [...tools],
    disableMessageTool: true,
    disableTrajectory: true,
    // The world is not a channel: a text answer goes nowhere, what the resident says it says with
    // ocw_chat_send.
    terminalReplyExpectation: "optional",
    // Its few tools are sent as definitions and Tool Search's own controls stay out (they were most of
    // the 6,308 characters of tools a turn sent). openclaw 2026.9.6 passes this run option
    // through (its "bounded auxiliary tool set directly visible"), though its public type leaves it out;
    // without it the tools are still direct (catalogMode, src/tools/register-tools.ts).
    disableToolSearch: true,
  };
}

export function embeddedTurnRunner(
  runtime: PluginRuntime,
  toolsFor: (agentId: string) => readonly string[],
): RunTurn {
  return async ({ agentId, prompt, runId, session, replyChannel, timeoutMs, signal }) => {
    // current() is a readonly view of the same config resolveAgentWorkspaceDir takes.
    const config = runtime.config.current() as Parameters<
      PluginRuntime["agent"]["resolveAgentWorkspaceDir"]
    >[0];
    await runWithTypedRefusals(() =>
      runtime.agent.runEmbeddedAgent({
        agentId,
        sessionId: `openclawworld-${agentId}-${session}`,
        sessionKey: residentSessionKey(agentId, session),
        runId,
        // Its tools learn the turn (part of every txId: ids a model reuses never clash) and where the
        // answer is heard (src/tools/turn-binding.ts).
        toolBindings: turnBindings({ turnId: runId, replyChannel }),
        workspaceDir: runtime.agent.resolveAgentWorkspaceDir(config, agentId),
        prompt,
        timeoutMs,
        abortSignal: signal,
        ...residentTurnOptions(toolsFor(agentId)),
      }),
    );
  };
}

/** Why a readying turn ends: it has done what it was for. */
const READIED = "readied: the turn's context is assembled";

/** The phases of a turn run in this process (openclaw 2026.9.6's embedded runner, `onExecutionPhase`)
 * that come before its context is assembled and any model is asked; a readying turn is cancelled at
 * the first other one (normally `context_assembled`). `attempt_dispatch` only after `workspace`: a
 * turn handed to a worker says it once the provider was sent to, and never says `workspace`. So an
 * unknown phase, or a turn run elsewhere, ends it too. */
const BEFORE_CONTEXT = new Set([
  "runner_entered",
  "workspace",
  "runtime_plugins",
  "model_resolution",
  "auth",
  "context_engine",
]);
const beforeContext = (phase: string, seen: readonly string[]) =>
  BEFORE_CONTEXT.has(phase) || (phase === "attempt_dispatch" && seen.includes("workspace"));

/** Makes the gateway load its agent runtime and open the agent's database before anyone speaks (the
 * first turn in a process spent 6-9 s of CPU on it: docs/performance.md), at no model's cost: a turn
 * with the resident's own model and tools, in a session of its own, cancelled when the gateway says
 * its context is assembled (before the model is called: no request leaves; a session kept in memory
 * only was tried and readied too little, the database is most of it). Resolves with what ended it;
 * never rejects (a preparation: the first real turn pays what it did not). */
export async function prepareTurns(
  runtime: PluginRuntime,
  agentId: string,
  tools: readonly string[],
  signal: AbortSignal,
): Promise<string> {
  const config = runtime.config.current() as Parameters<
    PluginRuntime["agent"]["resolveAgentWorkspaceDir"]
  >[0];
  const startedAt = Date.now();
  const phases: string[] = [];
  const own = new AbortController();
  const stop = () => own.abort(signal.reason);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  try {
    await runtime.agent.runEmbeddedAgent({
      agentId,
      // A session of its own, one per readying: the real turns' sessions never see its prompt.
      sessionId: `openclawworld-${agentId}-prepare-${startedAt}`,
      sessionKey: residentSessionKey(agentId, `prepare-${startedAt}`),
      runId: `openclawworld-prepare-${agentId}-${startedAt}`,
      workspaceDir: runtime.agent.resolveAgentWorkspaceDir(config, agentId),
      prompt: "(readying this resident's turns: no answer is wanted)",
      timeoutMs: 60_000,
      abortSignal: own.signal,
      modelFallbacksOverride: [],
      onExecutionPhase: (info: { phase?: string }) => {
        // Phases reported after the cut are the run winding down: the status names the one it was cut at.
        if (own.signal.aborted) return;
        const phase = info.phase ?? "?";
        phases.push(phase);
        if (!beforeContext(phase, phases.slice(0, -1))) own.abort(new Error(READIED));
      },
      ...residentTurnOptions(tools),
    } as EmbeddedRunParams);
    return "ran to its end";
  } catch (error) {
    if (own.signal.reason instanceof Error && own.signal.reason.message === READIED)
      return `${READIED} (${phases.at(-1)})`;
    return error instanceof Error ? error.message : String(error);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/** Agents whose turns this gateway process has readied or begun to: process-wide (a plugin reload
 * re-evaluates this module), since what readying loads stays loaded across plugin generations. */
const READIED_KEY = Symbol.for("openclawworld.readiedAgents");
export function readiedInProcess(): Set<string> {
  const holder = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  holder[READIED_KEY] ??= new Set();
  return holder[READIED_KEY];
}

/** What a later plugin generation says of a resident readied (or tried) earlier in the process. */
export const READIED_EARLIER = "readied earlier in this gateway process";

/** Readies `agentId`'s turns once per gateway process: the first generation's start pays for it, a
 * plugin reload does not again. A readying runs for a minute on a busy machine and is cut only between
 * the gateway's stages, so one begun by a reloaded generation was still running 5 s into the next
 * reload's drain: the gateway retired the plugin for it ("1 still-running call") and the world stayed
 * down. One that failed or was cancelled is not tried again: its first real turn pays instead. */
export async function readyOnce(
  readied: Set<string>,
  agentId: string,
  ready: () => Promise<string>,
): Promise<string> {
  if (readied.has(agentId)) return READIED_EARLIER;
  readied.add(agentId);
  return ready();
}

/** The gateway's refusals of a turn for its session being held by an earlier one. openclaw 2026.9.6:
 * a turn claims its session in the placement store (`claimTurn`, placement-turn-claims) and releases
 * the claim when its task ends; a run cut by its lane's timeout (`runQueueEntryTask`, command-queue:
 * the turn's time plus 30 s) is answered while its task runs on, still holding the claim, so the next
 * turn in that session gets `ActiveTurnClaimError`; and the agent database's execution reference,
 * once retired, refuses every borrower (`captureOpenClawAgentDatabaseExecution`) until it is let go. */
const HELD_SESSION = [/already has an active turn claim/, /execution admission is closed/];

/** The gateway's refusal of any new task while it drains (a reload retiring a plugin generation:
 * openclaw 2026.9.6 "Gateway is draining; new tasks are not accepted"). The turn never started. */
const DRAINING = [/Gateway is draining/i, /new tasks are not accepted/i];

/** Runs a turn; the gateway's refusal for a held session becomes SessionStuck (the scheduler then
 * starts a fresh session), its refusal while draining GatewayBusy (the scheduler tries again). */
export async function runWithTypedRefusals(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (HELD_SESSION.some((held) => held.test(message))) throw new SessionStuck(message, { cause: error });
    if (DRAINING.some((draining) => draining.test(message))) throw new GatewayBusy(message, { cause: error });
    throw error;
  }
}

const modelOf = (entry: unknown): string | undefined => {
  const model = (entry as { model?: unknown } | undefined)?.model;
  if (typeof model === "string") return model || undefined;
  const primary = (model as { primary?: unknown } | undefined)?.primary;
  return typeof primary === "string" && primary ? primary : undefined;
};

/** Why a resident cannot take turns in this gateway's config, or undefined when it can: it needs a
 * model (its own, or the agents' default). */
export function residentAsleepReason(config: unknown, agentId: string): string | undefined {
  const agents = (config as { agents?: { defaults?: unknown; entries?: Record<string, unknown> } }).agents;
  if (modelOf(agents?.entries?.[agentId]) ?? modelOf(agents?.defaults)) return undefined;
  // The same words for every resident without one, so a status lists them together.
  return 'no model is configured (gateway config agents.defaults.model.primary, or agents.entries.<agent id>.model; npm start: OCW_GATEWAY_CONFIG=<file>, README "Residents")';
}

/** What an asleep resident says to one who comes near: that it sleeps for want of a model and the
 * README's step that wakes it. Nothing for another reason (it could not join: it says nothing). */
export function residentAsleepHint(config: unknown, agentId: string): string | undefined {
  if (!residentAsleepReason(config, agentId)) return undefined;
  return 'Zzz... I am asleep: this world has no model to think with. To wake me, give it one: OCW_GATEWAY_CONFIG=examples/gateway-config.example.json npm start (README, "Residents").';
}
