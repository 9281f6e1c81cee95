// Property: malformed requests never throw, never map to a 5xx, and always answer the error wrapper.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DoorKind } from "../world/actions/action.ts";
import { DOOR_ACTIONS } from "../world/actions/registry.ts";
import { anyText } from "../world/testing/any-text.ts";
import { encodeCursor } from "./cursor.ts";
import { ENDPOINT_NAMES, type EndpointName } from "./endpoints.ts";
import { httpStatusFor } from "./errors.ts";
import { generatedAic } from "./schema-check.ts";
import { humanName } from "./schemas.ts";
import type { AicService } from "./service.ts";
import { createTestEnv, ManualClock } from "./testing/local-world.ts";

const A = "agent_helper";
/** A valid request of each endpoint: the fixed ones here, each action kind's from its own example. */
const VALID: Record<EndpointName, Record<string, unknown>> = {
  ...doorExamples(),
  observe: { agentId: A, roomId: "lobby", radius: 100, detail: "full" },
  moveTo: { agentId: A, roomId: "lobby", txId: "tx_fuzz_base_1", dest: { tx: 22, ty: 14 } },
  approach: { agentId: A, roomId: "lobby", txId: "tx_fuzz_approach", targetId: "obj_sign_welcome" },
  interact: {
    agentId: A,
    roomId: "lobby",
    txId: "tx_fuzz_base_2",
    targetId: "obj_sign_welcome",
    action: "read",
  },
  chatSend: { agentId: A, roomId: "lobby", txId: "tx_fuzz_base_3", channel: "global", message: "hi" },
  chatObserve: { agentId: A, roomId: "lobby", windowSec: 60 },
  pollEvents: { agentId: A, roomId: "lobby", sinceCursor: "c_0", waitMs: 1000 },
  join: { agentId: A, roomId: "lobby" },
  leave: { agentId: A, roomId: "lobby" },
  heartbeat: { agentId: A, roomId: "lobby" },
  reflect: { agentId: A, roomId: "lobby", txId: "tx_fuzz_reflect_1", content: "a thought", importance: 0.5 },
};

function doorExamples(): Record<DoorKind, Record<string, unknown>> {
  const rows: Record<string, Record<string, unknown>> = {};
  for (const { kind, doors } of DOOR_ACTIONS)
    rows[kind] = { agentId: A, roomId: "lobby", txId: `tx_fuzz_${kind}_1`, ...doors.example };
  return rows;
}

/** Text that is not well-formed Unicode: UTF-16 code units drawn with lone surrogates likely. */
const illFormed = fc.oneof(
  fc.constantFrom("\ud800", "\udfff", "half an emoji \ud83d", "\ude00\ud83d", "a\udc00b"),
  fc
    .array(fc.oneof(fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0x20, max: 0xffff })), {
      minLength: 1,
      maxLength: 20,
    })
    .map((units) => String.fromCharCode(...units))
    .filter((text) => !text.isWellFormed()),
);

/** What a hostile tester sent (issue #30), kept in the corpus so it stays refused: names that hide,
 * reorder or fake a label (NUL, BEL, a right-to-left override spelling "Agent a1" backwards, a person
 * calling itself an AI), a heartbeat action sent as JSON text, a guard that is no view digest. */
const TESTER_NAMES = [
  "a\u0000b",
  "bell\u0007",
  "\u202e1a tnegA",
  "\u2066Ada\u2069",
  "zero\u200bwidth",
  "Agent a7 · AI",
  "Bob (AI)",
];
const TESTER_TEXT = [
  ...TESTER_NAMES,
  JSON.stringify({ kind: "chatSend", txId: "tx_fuzz_as_text1", message: "hi" }),
  "0123456789ab\u202e",
];

const weird = fc.oneof(
  illFormed,
  fc.constantFrom(...TESTER_TEXT),
  fc.anything({ withNullPrototype: true, withObjectString: true, maxDepth: 3 }),
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1e308,
    -1,
    2 ** 53,
    "",
    "c_0",
    "\u0000",
    "__proto__",
  ),
  anyText({ maxLength: 300 }),
);

/** Mutations of a valid body: a field replaced, removed, an extra key, or a wholly odd value. */
function malformed(endpoint: EndpointName): fc.Arbitrary<unknown> {
  const valid = VALID[endpoint];
  const keys = Object.keys(valid);
  return fc.oneof(
    weird,
    fc.tuple(fc.constantFrom(...keys), weird).map(([key, value]) => ({ ...valid, [key]: value })),
    fc.constantFrom(...keys).map((key) => {
      const { [key]: _dropped, ...rest } = valid;
      return rest;
    }),
    fc
      .tuple(fc.string({ minLength: 1, maxLength: 20 }), weird)
      .map(([key, value]) => ({ ...valid, [`x${key}`]: value })),
    fc.constant(JSON.parse(`{"__proto__": {"polluted": true}, "agentId": "${A}"}`)),
  );
}

function call(service: AicService, endpoint: EndpointName, body: unknown) {
  return service.call(endpoint, A, body);
}

/** Free-text places in a valid request, each with the issue path the text rule must name. */
function withIllFormedText(
  endpoint: EndpointName,
): fc.Arbitrary<{ body: unknown; path: string | undefined }> {
  const valid = VALID[endpoint];
  const places: fc.Arbitrary<{ body: unknown; path: string | undefined }>[] = [
    // Any field (identifier patterns may report first: then only bad_request is asserted).
    fc
      .tuple(fc.constantFrom(...Object.keys(valid)), illFormed)
      .map(([key, text]) => ({ body: { ...valid, [key]: text }, path: undefined })),
    // An unknown key that is itself ill-formed.
    illFormed.map((text) => ({ body: { ...valid, [text]: 1 }, path: undefined })),
  ];
  if (endpoint === "chatSend") {
    places.push(illFormed.map((text) => ({ body: { ...valid, message: text }, path: "message" })));
  }
  if (endpoint === "interact") {
    places.push(
      illFormed.map((text) => ({ body: { ...valid, action: text.slice(0, 60) || text }, path: "action" })),
      fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), illFormed).map(([key, text]) => ({
        body: { ...valid, params: { [key]: [1, { deep: text }] } },
        path: `params.${key}.1.deep`,
      })),
    );
  }
  if (endpoint === "moveTo" || endpoint === "interact" || endpoint === "chatSend") {
    places.push(
      fc.tuple(fc.constantFrom("field", "equals"), illFormed).map(([key, text]) => ({
        body: {
          ...valid,
          expect: {
            objectState: {
              objectId: "obj_door_1",
              field: "open",
              equals: true,
              [key]: text.slice(0, 60) || text,
            },
          },
        },
        path: `expect.objectState.${key}`,
      })),
    );
  }
  return fc.oneof(...places);
}

describe("invalid Unicode in requests (fast-check)", () => {
  it.each(ENDPOINT_NAMES)("%s: a lone surrogate anywhere is bad_request, never stored", async (endpoint) => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    await env.join(A);
    await fc.assert(
      fc.asyncProperty(withIllFormedText(endpoint), async ({ body, path }) => {
        const pending = call(env.service, endpoint, body);
        env.runtime.stepNow();
        clock.advance(30_000);
        const result = (await pending) as Parameters<typeof httpStatusFor>[0];
        expect(result).toMatchObject({ status: "error", error: { code: "bad_request", retryable: false } });
        expect(generatedAic("Result", result).errors).toBe("");
        if (path !== undefined && result.status === "error") {
          const issues = (result.error.details?.issues ?? []) as { path: string; message: string }[];
          expect(issues.find((i) => i.path === path)?.message).toMatch(/well-formed Unicode/);
        }
        // The poison never reaches the world: its snapshot still hashes (what every guard needs).
        expect(() => env.world.snapshotHash()).not.toThrow();
      }),
      { numRuns: 300 },
    );
    expect(env.world.chatFor(`agt_${A}`, "lobby", 0)).toEqual([]);
  });
});

describe("malformed requests (fast-check)", () => {
  it.each(ENDPOINT_NAMES)("%s: never throws, never 5xx, always the wrapper", async (endpoint) => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    await env.join(A);
    await fc.assert(
      fc.asyncProperty(malformed(endpoint), async (body) => {
        const pending = call(env.service, endpoint, body);
        env.runtime.stepNow(); // an accidentally valid action gets its tick
        clock.advance(30_000); // an accidentally valid long-poll ends
        const result = (await pending) as Parameters<typeof httpStatusFor>[0];
        expect(generatedAic("Result", result).errors).toBe("");
        expect(httpStatusFor(result)).toBeLessThan(500);
        if (endpoint === "join" || endpoint === "leave") return;
        // Keep the agent in the room for the next run (an accidental leave is possible).
        if (!env.world.getEntity(`agt_${A}`)) await env.join(A);
      }),
      { numRuns: 1500 },
    );
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});

describe("repeated reflection sources (fast-check, issue #30)", () => {
  it("any list naming one source twice is bad_request and stores nothing", async () => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    await env.join(A);
    const seq = env.world.latestSeq("lobby");
    const cursor = fc.integer({ min: 1, max: seq }).map((s) => encodeCursor("lobby", s));
    await fc.assert(
      fc.asyncProperty(
        fc.array(cursor, { minLength: 1, maxLength: 14 }),
        fc.nat(),
        fc.nat(),
        async (sources, from, to) => {
          const repeated = [...sources];
          repeated.splice(to % (repeated.length + 1), 0, sources[from % sources.length]!);
          const pending = call(env.service, "reflect", {
            ...VALID.reflect,
            txId: `tx_fuzz_dup_${from}_${to}_${sources.length}`,
            sources: repeated,
          });
          env.runtime.stepNow();
          const result = (await pending) as Parameters<typeof httpStatusFor>[0];
          expect(result).toMatchObject({ status: "error", error: { code: "bad_request" } });
          expect(env.world.memoryOf(`agt_${A}`)?.reflections ?? []).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("what the hostile tester found (issue #30)", () => {
  it.each(TESTER_NAMES)("a person's join under %j is refused at the door, naming the field", (name) => {
    // The WebSocket join's name field (src/http/humans/protocol.ts) is this schema.
    const parsed = humanName().safeParse(name);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/control|invisible|AI label/);
  });

  it("a heartbeat action sent as JSON text, or a guard that is no view digest, is bad_request and applies nothing", async () => {
    const clock = new ManualClock();
    const env = await createTestEnv({ clock });
    await env.join(A);
    const asText = {
      ...VALID.heartbeat,
      action: JSON.stringify({ kind: "chatSend", txId: "tx_fuzz_as_text1", message: "hi" }),
    };
    const guards = fc
      .oneof(fc.constantFrom(...TESTER_TEXT), weird)
      // `{ view: undefined }` is `{}` on the wire: a guard left out, which is valid.
      .filter((v) => v !== undefined && (typeof v !== "string" || !/^[0-9a-f]{12}$/.test(v)));
    const bodies = fc.oneof(
      fc.constant<{ endpoint: EndpointName; body: unknown }>({ endpoint: "heartbeat", body: asText }),
      fc
        .tuple(fc.constantFrom<EndpointName>("moveTo", "interact", "chatSend"), guards)
        .map(([endpoint, view]) => ({
          endpoint,
          body: { ...VALID[endpoint], expect: { view } },
        })),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async ({ endpoint, body }) => {
        const pending = call(env.service, endpoint, body);
        env.runtime.stepNow();
        const result = (await pending) as Parameters<typeof httpStatusFor>[0];
        expect(result).toMatchObject({ status: "error", error: { code: "bad_request", retryable: false } });
        expect(generatedAic("Result", result).errors).toBe("");
      }),
      { numRuns: 200 },
    );
    expect(env.world.chatFor(`agt_${A}`, "lobby", 0)).toEqual([]);
  });
});
