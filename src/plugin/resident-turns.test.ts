import { describe, expect, it } from "vitest";
import { GatewayBusy, SessionStuck } from "../residents/scheduler.ts";
import {
  prepareTurns,
  READIED_EARLIER,
  readiedInProcess,
  readyOnce,
  residentAsleepHint,
  residentAsleepReason,
  runWithTypedRefusals,
} from "./resident-turns.ts";

describe("a resident without a model", () => {
  it("is asleep for the same reason as every other (a status lists them together), with the README's step", () => {
    const none = { agents: { entries: { guide: {} } } };
    expect(residentAsleepReason(none, "guide")).toBe(residentAsleepReason(none, "cafe"));
    expect(residentAsleepReason(none, "guide")).toMatch(
      /^no model is configured .*OCW_GATEWAY_CONFIG.*README "Residents"/,
    );
    expect(residentAsleepHint(none, "guide")).toMatch(
      /asleep.*OCW_GATEWAY_CONFIG=examples\/gateway-config\.example\.json npm start \(README, "Residents"\)/,
    );
  });

  it("with its own model or the agents' default it is awake, and says no hint", () => {
    const own = { agents: { entries: { guide: { model: "local/qwen3:8b" } } } };
    const shared = { agents: { defaults: { model: { primary: "local/qwen3:8b" } } } };
    for (const config of [own, shared]) {
      expect(residentAsleepReason(config, "guide")).toBeUndefined();
      expect(residentAsleepHint(config, "guide")).toBeUndefined();
    }
  });
});

describe("a turn the gateway refuses for its held session", () => {
  it("an active turn claim or a closed database admission is SessionStuck; any other failure stays what it was", async () => {
    const held = [
      "Session openclawworld-librarian-abc-0 already has an active turn claim",
      "Agent database execution admission is closed",
    ];
    for (const message of held)
      await expect(runWithTypedRefusals(() => Promise.reject(new Error(message)))).rejects.toBeInstanceOf(
        SessionStuck,
      );
    const other = new Error("model unreachable");
    await expect(runWithTypedRefusals(() => Promise.reject(other))).rejects.toBe(other);
    await expect(runWithTypedRefusals(() => Promise.resolve({ payloads: [] }))).resolves.toBeUndefined();
  });

  it("a draining gateway's refusal is GatewayBusy", async () => {
    await expect(
      runWithTypedRefusals(() =>
        Promise.reject(new Error("Gateway is draining; new tasks are not accepted")),
      ),
    ).rejects.toBeInstanceOf(GatewayBusy);
  });
});

describe("readying a resident's turns", () => {
  /** A gateway runtime whose turn reports `phases`, then ends (`ends`: failing) or, `hangs`, waits
   * for its abort. */
  function runtimeReporting(phases: string[], ends?: Error, hangs = false) {
    const seen: Record<string, unknown>[] = [];
    const runtime = {
      config: { current: () => ({}) },
      agent: {
        resolveAgentWorkspaceDir: () => "/tmp/ws",
        runEmbeddedAgent: (params: Record<string, unknown>) =>
          new Promise((resolve, reject) => {
            seen.push(params);
            const signal = params.abortSignal as AbortSignal;
            signal.addEventListener("abort", () => reject(new Error("The operation was aborted")));
            for (const phase of phases) {
              if (signal.aborted) return;
              (params.onExecutionPhase as (info: { phase: string }) => void)({ phase });
            }
            if (ends) reject(ends);
            else if (!signal.aborted && !hangs) resolve({ payloads: [] });
          }),
      },
    };
    return { runtime: runtime as never, seen };
  }

  it("is cancelled once the context is assembled, before any model call; its own session, the resident's tools, no fallbacks", async () => {
    const { runtime, seen } = runtimeReporting([
      "runner_entered",
      "model_resolution",
      "context_assembled",
      "model_call_started",
    ]);
    const said = await prepareTurns(runtime, "guide", ["ocw_chat_send"], new AbortController().signal);
    expect(said).toMatch(/^readied/);
    expect(seen[0]).toMatchObject({
      agentId: "guide",
      toolsAllow: ["ocw_chat_send"],
      modelFallbacksOverride: [],
    });
    expect(String(seen[0]!.sessionKey)).toMatch(/^agent:guide:openclawworld:prepare-\d+$/);
  });

  it("an unknown phase ends it as well, and a turn handed to a worker (no model is asked for it)", async () => {
    const { runtime } = runtimeReporting(["runner_entered", "process_spawned"]);
    expect(await prepareTurns(runtime, "guide", [], new AbortController().signal)).toMatch(
      /^readied.*\(process_spawned\)$/,
    );
    // A worker's turn says attempt_dispatch once sent, never workspace: that ends it there.
    const worker = runtimeReporting(["runner_entered", "model_resolution", "attempt_dispatch"]);
    expect(await prepareTurns(worker.runtime, "guide", [], new AbortController().signal)).toMatch(
      /\(attempt_dispatch\)$/,
    );
    // In this process it comes after workspace, before the context: that goes on to the context.
    const here = runtimeReporting(["runner_entered", "workspace", "attempt_dispatch", "context_assembled"]);
    expect(await prepareTurns(here.runtime, "guide", [], new AbortController().signal)).toMatch(
      /\(context_assembled\)$/,
    );
  });

  it("names the phase it was cut at, not those the run reports while it winds down", async () => {
    const runtime = {
      config: { current: () => ({}) },
      agent: {
        resolveAgentWorkspaceDir: () => "/tmp/ws",
        runEmbeddedAgent: async (params: Record<string, unknown>) => {
          const report = params.onExecutionPhase as (info: { phase: string }) => void;
          for (const phase of ["runner_entered", "context_assembled", "cleanup", "runner_exited"])
            report({ phase });
          throw new Error("The operation was aborted");
        },
      },
    };
    expect(await prepareTurns(runtime as never, "guide", [], new AbortController().signal)).toMatch(
      /\(context_assembled\)$/,
    );
  });

  it("a gateway that refuses it, or a world that stops, is said, never thrown", async () => {
    const refused = runtimeReporting([], new Error("Gateway is draining; new tasks are not accepted"));
    expect(await prepareTurns(refused.runtime, "guide", [], new AbortController().signal)).toBe(
      "Gateway is draining; new tasks are not accepted",
    );
    const stopping = new AbortController();
    const waiting = runtimeReporting(["runner_entered"], undefined, true);
    const said = prepareTurns(waiting.runtime, "guide", [], stopping.signal);
    stopping.abort(new Error("the world is stopping"));
    expect(await said).toBe("The operation was aborted");
  });
});

describe("readying a resident's turns once per gateway process", () => {
  it("a later plugin generation does not ready again, even when the first try failed; another agent is readied", async () => {
    const readied = new Set<string>();
    const runs: string[] = [];
    const ready = (agentId: string, said: string) => () => {
      runs.push(agentId);
      return Promise.resolve(said);
    };
    expect(
      await readyOnce(readied, "guide", ready("guide", "readied: the turn's context is assembled")),
    ).toMatch(/^readied:/);
    expect(await readyOnce(readied, "guide", ready("guide", "again"))).toBe(READIED_EARLIER);
    expect(await readyOnce(readied, "cafe", ready("cafe", "The operation was aborted"))).toBe(
      "The operation was aborted",
    );
    expect(await readyOnce(readied, "cafe", ready("cafe", "again"))).toBe(READIED_EARLIER);
    expect(runs).toEqual(["guide", "cafe"]);
  });

  it("the process's list outlives a reload of this module (it is kept on globalThis)", () => {
    expect(readiedInProcess()).toBe(readiedInProcess());
    expect((globalThis as Record<symbol, unknown>)[Symbol.for("openclawworld.readiedAgents")]).toBe(
      readiedInProcess(),
    );
  });
});
