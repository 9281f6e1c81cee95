import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../config/config.ts";
import { createToolPolicyHook, decideToolCall, enabledOptionalTools } from "./tool-policy.ts";

const policyOf = (tools: unknown) => resolveConfig({ tools }).tools;

describe("tool policy", () => {
  it("allows required tools and blocks optional tools by default", () => {
    const policy = policyOf({});
    expect(decideToolCall(policy, "ocw_observe", "main")).toEqual({ allowed: true });
    const blocked = decideToolCall(policy, "ocw_move_to", "main");
    expect(blocked.allowed).toBe(false);
    expect(!blocked.allowed && blocked.reason).toMatch(/tools\.enabled/);
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
    expect(!decision.allowed && decision.reason).toMatch(/denied/);
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

  it("the hook blocks with a reason that says how to enable", () => {
    const hook = createToolPolicyHook(policyOf({}));
    expect(hook({ toolName: "ocw_interact" }, { agentId: "main" })).toEqual({
      block: true,
      blockReason: expect.stringContaining('"enabled": ["ocw_interact"]'),
    });
    expect(hook({ toolName: "ocw_status" }, {})).toBeUndefined();
  });
});
