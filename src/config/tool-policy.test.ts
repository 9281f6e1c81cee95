import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createToolPolicyHook } from "../hooks/tool-gate.ts";
import { ConfigError, resolveConfig } from "./config.ts";
import {
  allowedEmbeddedKinds,
  allowedWorldTools,
  decideToolCall,
  decideToolCallWithParams,
  EMBEDDED_ACTION_TOOL,
  enabledOptionalTools,
} from "./tool-policy.ts";

const policyOf = (tools: unknown) => resolveConfig({ tools }).tools;

describe("tool policy", () => {
  it("allows required tools and blocks optional tools by default", () => {
    const policy = policyOf({});
    expect(decideToolCall(policy, "ocw_observe", "main")).toEqual({ allowed: true });
    const blocked = decideToolCall(policy, "ocw_move_to", "main");
    expect(blocked.allowed).toBe(false);
    expect(!blocked.allowed && blocked.reason).toMatch(/not enabled for you/);
  });

  it("enables optional tools in either spelling", () => {
    const policy = policyOf({ enabled: ["ocw.move_to", "ocw_interact"] });
    expect(decideToolCall(policy, "ocw_move_to", undefined).allowed).toBe(true);
    expect(decideToolCall(policy, "ocw_interact", undefined).allowed).toBe(true);
    expect(decideToolCall(policy, "ocw_chat_send", undefined).allowed).toBe(false);
  });

  it("lets deny win over enable, in either spelling", () => {
    const policy = policyOf({ enabled: ["ocw_chat_send"], denied: ["ocw.chat_send"] });
    const decision = decideToolCall(policy, "ocw_chat_send", "main");
    expect(decision.allowed).toBe(false);
    expect(!decision.allowed && decision.reason).toMatch(/not enabled for you/);
  });

  it("can deny a required tool explicitly", () => {
    expect(decideToolCall(policyOf({ denied: ["ocw_observe"] }), "ocw_observe", "a").allowed).toBe(false);
  });

  it("supports per-agent enable and deny", () => {
    const policy = policyOf({
      perAgent: { scout: { enabled: ["ocw_move_to"] }, quiet: { denied: ["ocw_status"] } },
    });
    expect(decideToolCall(policy, "ocw_move_to", "scout").allowed).toBe(true);
    expect(decideToolCall(policy, "ocw_move_to", "other").allowed).toBe(false);
    expect(decideToolCall(policy, "ocw_status", "quiet").allowed).toBe(false);
    expect(enabledOptionalTools(policy, "scout")).toEqual(["ocw_move_to"]);
    expect(enabledOptionalTools(policy, "other")).toEqual([]);
  });

  it("ignores tools that are not ours", () => {
    expect(decideToolCall(policyOf({ denied: ["ocw_status"] }), "exec", "main")).toEqual({ allowed: true });
  });

  it("refuses config that would disable a required tool, or names an unknown tool", () => {
    expect(() => policyOf({ disabled: ["ocw_observe"] })).toThrow(ConfigError);
    expect(() => policyOf({ enabled: ["ocw.observe"] })).toThrow(/required tool.*denied/);
    expect(() => policyOf({ denied: ["ocw_teleport"] })).toThrow(/unknown tool "ocw_teleport"/);
  });

  it("the hook blocks with a reason that speaks to the agent and names no config key", () => {
    const policy = policyOf({ denied: ["ocw_chat_send"], perAgent: { a: { denied: ["ocw_status"] } } });
    const hook = createToolPolicyHook(policy);
    const reasons = [
      hook({ toolName: "ocw_interact" }, { agentId: "main" }),
      hook({ toolName: "ocw_chat_send" }, { agentId: "main" }),
      hook({ toolName: "ocw_status" }, { agentId: "a" }),
      hook({ toolName: "ocw_heartbeat", params: { action: { kind: "interact" } } }, { agentId: "main" }),
    ].map((r) => r?.blockReason ?? "");
    for (const reason of reasons) {
      expect(reason).toMatch(/not enabled for you.*ask your operator/);
      expect(reason).not.toMatch(/plugins\.|tools\.|perAgent|enabled"|alsoAllow|config/);
    }
    expect(hook({ toolName: "ocw_status" }, {})).toBeUndefined();
  });

  it("lists the embedded action kinds an agent may send", () => {
    const policy = policyOf({
      enabled: ["ocw_chat_send"],
      perAgent: { walker: { enabled: ["ocw_move_to"] } },
    });
    expect([...allowedEmbeddedKinds(policy, "walker")].sort()).toEqual(["chatSend", "moveTo"]);
    expect([...allowedEmbeddedKinds(policy, "other")]).toEqual(["chatSend"]);
  });

  it("lists every ocw_* tool an agent may call (a resident's turn gets exactly these)", () => {
    const policy = policyOf({
      perAgent: { guide: { enabled: ["ocw_chat_send"], denied: ["ocw_status"] } },
    });
    const guide = allowedWorldTools(policy, "guide");
    expect(guide).toContain("ocw_chat_send");
    expect(guide).toContain("ocw_heartbeat");
    expect(guide).not.toContain("ocw_status");
    expect(guide).not.toContain("ocw_move_to");
    expect(allowedWorldTools(policy, "other")).not.toContain("ocw_chat_send");
  });
});

describe("ocw_heartbeat's embedded action", () => {
  const optional = ["ocw_move_to", "ocw_interact", "ocw_chat_send"] as const;
  const spelled = (name: string, dotted: boolean) => (dotted ? name.replace(/^ocw_/, "ocw.") : name);

  it("property: is allowed exactly when the tool it stands for is (opt-in and denylist, global and per agent)", () => {
    fc.assert(
      fc.property(
        fc.subarray([...optional]),
        fc.subarray([...optional, "ocw_heartbeat"]),
        fc.subarray([...optional]),
        fc.subarray([...optional]),
        fc.constantFrom("moveTo", "interact", "chatSend"),
        fc.boolean(),
        (enabled, denied, agentEnabled, agentDenied, kind, dotted) => {
          const policy = policyOf({
            enabled: enabled.map((n) => spelled(n, dotted)),
            denied: denied.map((n) => spelled(n, !dotted)),
            perAgent: { bot: { enabled: agentEnabled, denied: agentDenied } },
          });
          for (const agentId of ["bot", "other", undefined]) {
            const viaHeartbeat = decideToolCallWithParams(
              policy,
              "ocw_heartbeat",
              { action: { kind } },
              agentId,
            );
            const heartbeat = decideToolCall(policy, "ocw_heartbeat", agentId).allowed;
            const own = decideToolCall(policy, EMBEDDED_ACTION_TOOL[kind]!, agentId).allowed;
            expect(viaHeartbeat.allowed).toBe(heartbeat && own);
            // Without an action a heartbeat is a read: only its own entry matters.
            expect(decideToolCallWithParams(policy, "ocw.heartbeat", {}, agentId).allowed).toBe(heartbeat);
          }
        },
      ),
    );
  });

  it("blocks an unknown or malformed action kind and explains a blocked one; the hook reads params", () => {
    const policy = policyOf({ enabled: ["ocw_move_to"] });
    for (const action of [{ kind: "teleport" }, { kind: "__proto__" }, "moveTo", 7, {}]) {
      expect(decideToolCallWithParams(policy, "ocw_heartbeat", { action }, "a").allowed).toBe(false);
    }
    expect(decideToolCallWithParams(policy, "ocw_heartbeat", { action: { kind: "moveTo" } }, "a")).toEqual({
      allowed: true,
    });
    const hook = createToolPolicyHook(policy);
    const blocked = hook(
      { toolName: "ocw_heartbeat", params: { action: { kind: "chatSend", message: "x" } } },
      {},
    );
    expect(blocked).toMatchObject({ block: true });
    expect(blocked?.blockReason).toMatch(/counts as ocw_chat_send/);
    expect(hook({ toolName: "ocw_heartbeat", params: {} }, {})).toBeUndefined();
  });

  it("property: an action sent as a JSON string is judged exactly as the same action as an object", () => {
    const policy = policyOf({ enabled: ["ocw_move_to"], perAgent: { bot: { enabled: ["ocw_chat_send"] } } });
    const action = fc.oneof(
      fc.record({ kind: fc.constantFrom("moveTo", "interact", "chatSend", "teleport", "__proto__", "") }),
      fc.dictionary(fc.string(), fc.jsonValue()),
    );
    fc.assert(
      fc.property(
        action,
        fc.constantFrom("bot", "other", undefined),
        fc.string().filter((t) => !t.includes('"')),
        (a, agentId, pad) => {
          const asObject = decideToolCallWithParams(policy, "ocw_heartbeat", { action: a }, agentId);
          const asString = decideToolCallWithParams(
            policy,
            "ocw_heartbeat",
            { action: ` ${JSON.stringify(a)}` },
            agentId,
          );
          expect(asString.allowed).toBe(asObject.allowed);
          // A string that opens an object but names no key never passes as an action.
          const hostile = decideToolCallWithParams(policy, "ocw_heartbeat", { action: `{${pad}` }, agentId);
          expect(hostile.allowed).toBe(false);
        },
      ),
    );
  });

  it("judges an action sent as a JSON string as the tool's coercion will read it (issue #30)", () => {
    const policy = policyOf({ enabled: ["ocw_move_to"] });
    const asString = JSON.stringify({ kind: "moveTo", dest: { tx: 3, ty: 4 } });
    expect(decideToolCallWithParams(policy, "ocw_heartbeat", { action: asString }, "a")).toEqual({
      allowed: true,
    });
    expect(decideToolCallWithParams(policy, "ocw_heartbeat", { action: ` ${asString}` }, "a")).toEqual({
      allowed: true,
    });
    const chat = JSON.stringify({ kind: "chatSend", message: "hi" });
    const blocked = decideToolCallWithParams(policy, "ocw_heartbeat", { action: chat }, "a");
    expect(!blocked.allowed && blocked.reason).toMatch(/counts as ocw_chat_send/);
    // A string that is not an object stays refused, whatever it spells.
    for (const action of ["moveTo", "{not json", "[1]", '"moveTo"']) {
      expect(decideToolCallWithParams(policy, "ocw_heartbeat", { action }, "a").allowed).toBe(false);
    }
  });
});
