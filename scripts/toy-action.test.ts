// A new action kind is one file and one registry line, for everyone: in a copy of the repository, a
// toy `bow` (src/world/actions/bow.ts + its line in registry.ts) reaches the AIC, the tools, the
// page's controls and the fuzz and contract tests' requests, and passes the checks a contributor
// runs, with nothing else edited by hand; gen:schemas (npm run build runs it) writes the rest.
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyRepository, runNode } from "./lib/repo-copy.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
let parent: string;
let copy: string;

/** The whole of the toy kind: a chat line on the proximity channel, as a gesture is. */
const BOW = `// A bow: those near the actor see it as a line on the proximity channel.
import { defineAction, fieldsProblem } from "./action.ts";
import { chat } from "./chat.ts";
import { MessageIdField } from "./field-shapes.ts";

declare module "../types.ts" {
  interface ActionFields {
    bow: Record<never, never>;
  }
  interface ActionAnswers {
    bow: { chatMessageId: string };
  }
}

const fields = {};

export const bow = defineAction({
  kind: "bow",
  rateClass: "chatSend",
  doors: {
    humans: true,
    offer: { icon: "^", label: "Bow" },
    example: {},
    fields,
    answer: { chatMessageId: MessageIdField },
    tool: { label: "Bow", description: "A bow those near you see." },
    summary: "Bow to those near you",
    description: "A bow those near you see, as a line on the proximity channel. Idempotent by txId.",
  },
  check: (input) => fieldsProblem(fields, input),
  apply(w, { entityId }) {
    const said = chat.apply(w, { kind: "chat", entityId, channel: "proximity", message: "bows" });
    if (!said.ok || said.value.kind !== "chat") return said;
    return { ok: true, value: { kind: "bow", chatMessageId: said.value.chatMessageId } };
  },
});
`;

/** What the copy's own modules say of bow, asked outside the copy so the probe is no file of it. */
const PROBE = `
import { contractCases } from "./repo/conformance/contract.ts";
import { ENDPOINT_NAMES } from "./repo/src/aic/endpoints.ts";
import { createTestEnv, ManualClock } from "./repo/src/aic/testing/local-world.ts";
import { ALL_TOOLS } from "./repo/src/config/config.ts";
import { fieldsProblem } from "./repo/src/world/actions/action.ts";
import { DOOR_ACTIONS, PAGE_OFFERS } from "./repo/src/world/actions/registry.ts";
const bow = DOOR_ACTIONS.find((a) => a.kind === "bow");
const env = await createTestEnv({ clock: new ManualClock() });
await env.join("agent_helper");
const pending = env.service.call("bow", "agent_helper", {
  agentId: "agent_helper", roomId: "lobby", txId: "tx_toy_bow_0001", ...bow.doors.example,
});
env.runtime.stepNow();
const answer = await pending;
console.log(JSON.stringify({
  endpoints: ENDPOINT_NAMES,
  tools: ALL_TOOLS,
  offers: PAGE_OFFERS,
  exampleProblem: fieldsProblem(bow.doors.fields, bow.doors.example) ?? null,
  contract: contractCases("agent_helper", { roomId: "lobby", cursor: "0", objects: [], gaps: [] }, "r")
    .map((c) => c.endpoint + ": " + c.name),
  answer,
  heard: env.world.chatFor("agt_agent_helper", "lobby", 0).map((m) => m.message),
}));
process.exit(0);
`;

/** Each file of the copy (node_modules aside) and a digest of what it holds. */
function digests(): Map<string, string> {
  const files = readdirSync(copy)
    .filter((top) => top !== "node_modules")
    .flatMap((top) =>
      statSync(path.join(copy, top)).isDirectory()
        ? readdirSync(path.join(copy, top), { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => path.relative(copy, path.join(entry.parentPath, entry.name)))
        : [top],
    );
  return new Map(
    files.map((file) => [
      file,
      createHash("sha256")
        .update(readFileSync(path.join(copy, file)))
        .digest("hex"),
    ]),
  );
}

/** The copy as it was made, before the toy (this checkout may change while the test runs). */
let asCopied: Map<string, string>;

/** What gen:schemas said when it ran in the copy (as npm run build runs it). */
let generated: { code: number; out: string };

beforeAll(async () => {
  parent = mkdtempSync(path.join(os.tmpdir(), "ocw-toy-action-"));
  copy = path.join(parent, "repo");
  copyRepository(root, copy);
  asCopied = digests();
  writeFileSync(path.join(copy, "src/world/actions/bow.ts"), BOW);
  const registryFile = path.join(copy, "src/world/actions/registry.ts");
  const registry = readFileSync(registryFile, "utf8");
  // The one line: the list entry, with the import it names.
  writeFileSync(
    registryFile,
    registry
      .replace(
        'import { chat } from "./chat.ts";',
        'import { bow } from "./bow.ts";\nimport { chat } from "./chat.ts";',
      )
      .replace("  emote,\n", "  emote,\n  bow,\n"),
  );
  writeFileSync(path.join(parent, "probe.ts"), PROBE);
  generated = await runNode(copy, ["scripts/gen-schemas.ts"]);
}, 60_000);

afterAll(() => {
  if (parent) rmSync(parent, { recursive: true, force: true });
});

describe("a toy action added as one file and one registry line, in a copy of the repository", () => {
  it("gen:schemas writes its endpoint into docs/aic/v0.1 and its tool into the manifest, then checks clean", async () => {
    expect(generated.code, generated.out).toBe(0);
    const openapi = JSON.parse(readFileSync(path.join(copy, "docs/aic/v0.1/openapi.json"), "utf8"));
    expect(Object.keys(openapi.paths)).toContain("/aic/v0.1/bow");
    const manifest = JSON.parse(readFileSync(path.join(copy, "openclaw.plugin.json"), "utf8"));
    expect(manifest.contracts.tools).toContain("ocw_bow");
    const check = await runNode(copy, ["scripts/gen-schemas.ts", "--check"]);
    expect(check.code, check.out).toBe(0);
  }, 60_000);

  it("the copy type-checks: the fuzz test's and the contract cases' requests come from its example", async () => {
    const tsc = path.join(copy, "node_modules", "typescript", "bin", "tsc");
    // The one slow step (~40 CPU-s): every test and script is type-checked against the new kind.
    const result = await runNode(copy, [tsc, "-p", "tsconfig.json"], 300_000);
    expect(result.code, result.out.slice(-3000)).toBe(0);
  }, 300_000);

  it("the import graph and the action-shape check pass", async () => {
    const result = await runNode(copy, ["scripts/check-imports.ts"]);
    expect(result.code, result.out.slice(-2000)).toBe(0);
    expect(result.out).toContain('"actionShapeProblems":0');
  }, 60_000);

  it("it is an endpoint, a tool, a control on the page, a contract case, and acts", async () => {
    const result = await runNode(parent, ["probe.ts"]);
    expect(result.code, result.out.slice(-2000)).toBe(0);
    const seen = JSON.parse(result.out.trim().split("\n").at(-1) as string);
    expect(seen.endpoints).toContain("bow");
    expect(seen.tools).toContain("ocw_bow");
    expect(seen.offers).toContainEqual({ kind: "bow", icon: "^", label: "Bow" });
    expect(seen.exampleProblem).toBeNull();
    expect(seen.contract).toEqual(
      expect.arrayContaining(["bow: its own example", "bow: its example and an unknown key"]),
    );
    expect(seen.answer).toMatchObject({ status: "ok", data: { applied: true } });
    expect(seen.heard).toContain("bows");
  }, 60_000);

  it("only the new file and the registry were edited; gen:schemas wrote the documents and the manifest", () => {
    const changed = [...digests()].filter(([file, digest]) => asCopied.get(file) !== digest);
    expect(changed.map(([file]) => file).sort()).toEqual(
      [
        "docs/aic/v0.1/aic-schema.json",
        "docs/aic/v0.1/openapi.json",
        "openclaw.plugin.json",
        "src/world/actions/bow.ts",
        "src/world/actions/registry.ts",
      ].sort(),
    );
  });
});
