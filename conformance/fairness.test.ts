// The suite's verdicts on a server that is not ours (test/support/prd-aic-server.ts: the PRD's six
// endpoints, another map, another room): the correct server passes every case it can take and the
// rest are skipped by name with the reason; each injected fault fails exactly the cases it breaks
// (a deviation once: the first case that meets it).
import { afterEach, describe, expect, it } from "vitest";
import { type PrdServer, type PrdServerFaults, startPrdServer } from "../test/support/prd-aic-server.ts";
import { NO_HUMAN } from "./capabilities.ts";
import { conformanceCommand } from "./command.ts";

const TOKENS = { "token-of-prd-a-0001": "prd_a", "token-of-prd-b-0001": "prd_b" };
const servers: PrdServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface Summary {
  passed: number;
  failed: number;
  skipped: number;
  cases: { suite: string; name: string; ok: boolean; problem?: string; skipped?: string }[];
}

async function verdict(
  faults: PrdServerFaults = {},
): Promise<{ code: number; out: string; summary: Summary }> {
  const server = await startPrdServer(TOKENS, faults);
  servers.push(server);
  const lines: string[] = [];
  const code = await conformanceCommand(
    [
      "--base-url",
      server.baseUrl,
      "--room",
      server.room,
      "--agent",
      "prd_a:token-of-prd-a-0001",
      "--agent",
      "prd_b:token-of-prd-b-0001",
    ],
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
  );
  return { code, out: lines.join("\n"), summary: JSON.parse(lines.at(-1)!) as Summary };
}

const failedNames = (summary: Summary) => summary.cases.filter((c) => !c.ok).map((c) => c.name);

describe("conformance verdicts on a PRD-only server with another map", () => {
  it("passes; what needs an extension, a human or an object the room lacks is skipped by name, with the reason", async () => {
    const { code, out, summary } = await verdict();
    expect(failedNames(summary), out).toEqual([]);
    expect(code).toBe(0);
    const skipped = Object.fromEntries(
      summary.cases.filter((c) => c.skipped).map((c) => [c.name, c.skipped]),
    );
    // No golden trace of the atrium: sign reading finds the plaque by observing and plays the PRD's
    // steps; the atrium has no portal.
    expect(skipped.signReading).toBeUndefined();
    expect(skipped.portalMovement).toBe("room atrium shows no portal");
    expect(skipped.proximityChat).toBe(NO_HUMAN);
    expect(skipped["heartbeat: memory 20 (max)"]).toMatch(/^needs the heartbeat extension, .*HTTP 404/);
    // The world-independent cases ran in the atrium: interact found the plaque by observing.
    const ran = summary.cases.filter((c) => !c.skipped).map((c) => c.name);
    expect(ran).toEqual(
      expect.arrayContaining([
        "interact: action of 1 character (min)",
        "signReading",
        "moveTo: the tile it stands on, txId of 8 characters after tx_ (min)",
        "chatSend: the same txId and payload again is the same answer, and one message",
        "chatSend: the same txId with another message is a conflict",
        "pollEvents: reading on from each nextCursor never delivers an event twice",
      ]),
    );
    expect(summary.passed).toBeGreaterThan(30);
  });

  it.each([
    [
      "a wrong field",
      { wrongField: true },
      ["moveTo: the tile it stands on, txId of 8 characters after tx_ (min)"],
    ],
    ["a missing error code", { missingErrorCode: true }, ["pollEvents: limit 201 (above max)"]],
    [
      "a cursor that goes back",
      { cursorGoesBack: true },
      ["pollEvents: reading on from each nextCursor never delivers an event twice"],
    ],
    [
      "a txId replay that differs",
      { replayDiffers: true },
      ["chatSend: the same txId and payload again is the same answer, and one message"],
    ],
  ] as const)("with %s it fails exactly the cases that meet it", async (_what, faults, expected) => {
    const { code, out, summary } = await verdict(faults);
    expect(failedNames(summary), out).toEqual(expected);
    expect(code).toBe(1);
  });
});
