// The operator's record of an agent's turns beside the replay: every request an agent or
// resident makes through the contract (AicService's `onCall`: the one path every door takes) with
// the answer as served, every tool call the gateway's policy blocked, and every resident turn (what
// woke it, how long it and its model took; a remote resident's turn is its wake delivery). Written to
// the replay history (history.ts `noteTurn`) after the event-loop turn, never on the tick; kept
// within `replay.agentTurnsMegabytes`, read by the operator (replay.ts) and by the agent's owner on the
// follow page, its own turns only (follow-desk.ts).
import type { CallRecord } from "../aic/service.ts";
import type { TurnRecord, TurnRequest } from "../residents/scheduler.ts";
import type { AgentTurn } from "../runtime/history.ts";
import type { WorldHost } from "./host.ts";

/** A request's or an answer's JSON is cut past this many characters (an observe of a wide radius
 * can be long); the cut says how long it was. */
export const MAX_TURN_TEXT = 16_384;

export function cappedJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    text = JSON.stringify(String(value));
  }
  return text.length <= MAX_TURN_TEXT
    ? text
    : `${text.slice(0, MAX_TURN_TEXT)}… (cut: ${text.length} characters)`;
}

/** A request as the record keeps it. */
export function turnOfCall(call: CallRecord): AgentTurn {
  const { answer } = call;
  const status =
    answer.status === "ok" ? "ok" : answer.status === "blocked" ? "tool_call_blocked" : answer.error.code;
  return {
    agentId: call.caller,
    kind: answer.status === "blocked" ? "blocked" : "call",
    name: call.endpoint,
    tick: call.tick,
    time: call.time,
    status,
    ms: Math.round(call.ms * 10) / 10,
    request: cappedJson(call.request),
    answer: cappedJson(
      answer.status === "ok" ? answer.data : answer.status === "blocked" ? answer : answer.error,
    ),
  };
}

/** A resident's turn as the record keeps it: its request is what woke it and what it was told. */
export function turnOfResident(
  agentId: string,
  record: TurnRecord,
  wokenBy: TurnRequest["wokenBy"],
  at: { tick: number; time: number },
): AgentTurn {
  return {
    agentId,
    kind: "turn",
    name: "turn",
    tick: at.tick,
    time: at.time,
    status: record.error === undefined ? "ok" : "failed",
    ms: (record.endedAtMs ?? record.startedAtMs) - record.startedAtMs,
    request: cappedJson({ wokenBy, startedAtTick: record.startedAtTick, prompt: record.prompt }),
    answer: cappedJson({
      modelRequests: record.modelRequests,
      ...(record.modelMs !== undefined ? { modelMs: record.modelMs } : {}),
      ...(record.modelFailures
        ? { modelFailures: record.modelFailures, lastModelFailure: record.lastModelFailure }
        : {}),
      ...(record.error !== undefined ? { error: record.error } : {}),
    }),
  };
}

/** The hooks that feed a host's history (none when it keeps none): for the AIC service and for the
 * residents' schedulers. */
export function agentTurnHooks(host: Pick<WorldHost, "history" | "runtime">) {
  const history = host.history;
  if (!history) return {};
  const now = () => ({ tick: host.runtime.world.tick, time: host.runtime.world.serverTsMs });
  const note = (turn: AgentTurn) => {
    history.noteTurn(turn);
    for (const listener of listeners.get(host) ?? []) listener(turn);
  };
  return {
    onCall: (call: CallRecord) => note(turnOfCall(call)),
    onTurnEnd: (agentId: string, record: TurnRecord, wokenBy: TurnRequest["wokenBy"]) => {
      try {
        note(turnOfResident(agentId, record, wokenBy, now()));
      } catch {
        // The record is the operator's aid: it never fails a turn.
      }
    },
  };
}

const listeners = new WeakMap<object, Set<(turn: AgentTurn) => void>>();

/** Tells `listener` each turn noted for `host` from now on (the follow page's stream); returns the
 * unsubscribe function. A listener that throws is its own problem: it must not. */
export function onAgentTurn(host: object, listener: (turn: AgentTurn) => void): () => void {
  let set = listeners.get(host);
  if (!set) {
    set = new Set();
    listeners.set(host, set);
  }
  set.add(listener);
  return () => set.delete(listener);
}

/** One hook of `agentTurnHooks`, as an object to spread into a constructor's options (none: {}). */
export function only<K extends "onCall" | "onTurnEnd">(
  hooks: ReturnType<typeof agentTurnHooks>,
  name: K,
): Partial<Pick<Required<ReturnType<typeof agentTurnHooks>>, K>> {
  const hook = hooks[name];
  return hook ? ({ [name]: hook } as Partial<Pick<Required<ReturnType<typeof agentTurnHooks>>, K>>) : {};
}
