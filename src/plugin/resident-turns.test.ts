import { describe, expect, it } from "vitest";
import { GatewayBusy, SessionStuck } from "../residents/scheduler.ts";
import { residentAsleepHint, residentAsleepReason, runWithTypedRefusals } from "./resident-turns.ts";

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
