// The suite's verdict on another team's server (test/support/other-aic-server.ts: our world behind a
// proxy that answers with more than the PRD and has a /heartbeat of its own): every case is in the
// verdict and runs unless it needs what the server has not shown it has, none of this project's
// extensions is judged, and each planted deviation fails one case: the first that meets it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtherServer, PLANTED, startOtherServer } from "../test/support/other-aic-server.ts";
import { EXTENSION_ENDPOINTS, NO_HUMAN } from "./capabilities.ts";
import { conformanceCommand } from "./command.ts";
import { contractCases, SEQUENCE_CASES } from "./contract.ts";
import { SCENARIOS } from "./scenarios.ts";

const TOKENS = { "token-of-other-a-01": "other_a", "token-of-other-b-01": "other_b" };

interface Case {
  suite: string;
  name: string;
  ok: boolean;
  problem?: string;
  skipped?: string;
}
interface Summary {
  ran: number;
  passed: number;
  failed: number;
  skipped: number;
  cases: Case[];
}

let server: OtherServer;
let code: number;
let out: string;
let summary: Summary;

beforeAll(async () => {
  server = await startOtherServer(TOKENS);
  const lines: string[] = [];
  code = await conformanceCommand(
    [
      "--base-url",
      server.baseUrl,
      "--room",
      server.room,
      ...Object.entries(TOKENS).flatMap(([token, id]) => ["--agent", `${id}:${token}`]),
    ],
    { log: (line) => lines.push(line), error: (line) => lines.push(line) },
  );
  out = lines.join("\n");
  summary = JSON.parse(lines.at(-1) as string) as Summary;
}, 60_000);
afterAll(() => server?.close());

/** The cases this project's extensions own: their endpoints', and observe's memory field. */
const isExtensionCase = (name: string) =>
  (EXTENSION_ENDPOINTS as string[]).includes(name.split(":")[0] as string) ||
  name.startsWith("observe: memory");

describe("conformance verdicts on another team's server", () => {
  it("lists every case, and counts ran, passed, failed and skipped", () => {
    const names = [
      ...contractCases("other_a", { roomId: server.room, cursor: "0", objects: [], gaps: [] }, "r").map(
        (k) => `${k.endpoint}: ${k.name}`,
      ),
      ...SEQUENCE_CASES.map((k) => `${k.endpoint}: ${k.name}`),
      ...Object.keys(SCENARIOS),
    ];
    expect(summary.cases.map((c) => c.name)).toEqual(names);
    expect(summary.ran).toBe(summary.passed + summary.failed);
    expect(summary.ran + summary.skipped).toBe(names.length);
    expect(out).toContain(
      `${names.length} cases: ${summary.ran} ran (${summary.passed} passed, ${summary.failed} failed), ${summary.skipped} skipped, each with its reason`,
    );
    expect(code).toBe(1);
  });

  it("runs every PRD case and scenario; skips only our extensions (not shown to be ours) and the human", () => {
    const skipped = summary.cases.filter((c) => c.skipped);
    for (const c of skipped) {
      if (c.name === "proximityChat") expect(c.skipped).toBe(NO_HUMAN);
      else {
        expect(isExtensionCase(c.name), c.name).toBe(true);
        expect(c.skipped).toMatch(/^needs the \w+ extension, which this server does not serve/);
      }
    }
    // Every extension case is skipped: their /heartbeat answers, but not as ours.
    expect(summary.cases.filter((c) => isExtensionCase(c.name)).every((c) => c.skipped)).toBe(true);
    const heartbeat = summary.cases.find((c) => c.name.startsWith("heartbeat:"));
    expect(heartbeat?.skipped).toContain("POST /heartbeat was answered ok, but not as this project's");
    const ran = summary.cases.filter((c) => !c.skipped).map((c) => c.name);
    expect(ran).toEqual(expect.arrayContaining(["signReading", "portalMovement"]));
    expect(skipped.length).toBe(summary.cases.filter((c) => isExtensionCase(c.name)).length + 1);
  });

  it("reports each planted deviation once, by the case that meets it first, with the schema path and the PRD section", () => {
    const failed = summary.cases.filter((c) => !c.ok);
    expect(
      failed.map((c) => c.name),
      out,
    ).toEqual([
      "observe: radius 1 (min)",
      "observe: radius 2000 (max)",
      "chatSend: message of 1 character",
      "pollEvents: limit 1 (min)",
    ]);
    const reporting = (sign: string) => failed.filter((c) => c.problem?.includes(sign)).map((c) => c.name);
    for (const field of PLANTED.observeFields)
      expect(reporting(`must NOT have additional properties (${field})`)).toEqual([
        "observe: radius 1 (min)",
      ]);
    // The npc: a kind the PRD has not, an id none of its prefixes.
    expect(reporting("/entity/kind: must be equal to one of the allowed values")).toEqual([
      "observe: radius 2000 (max)",
    ]);
    expect(reporting("/entity/id: must match pattern")).toEqual(["observe: radius 2000 (max)"]);
    expect(reporting(`(${PLANTED.chatSendField})`)).toEqual(["chatSend: message of 1 character"]);
    expect(reporting(`event ${PLANTED.eventType}: not an event type of the schema`)).toEqual([
      "pollEvents: limit 1 (min)",
    ]);
    for (const c of failed) {
      expect(c.problem).toMatch(/\(PRD 6\.3 POST \/\w+; wrapper and errors: PRD 5; events: PRD 6\.4\)/);
      expect(c.problem).toMatch(/PRD \w+ at \/[\w/]*: .* \[schema #\/[\w$/]+\]/);
    }
  });
});
