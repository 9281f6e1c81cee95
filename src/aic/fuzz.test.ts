// Property: malformed requests never throw, never map to a 5xx, and always answer the error wrapper.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { httpStatusFor } from "./errors.ts";
import { createTestEnv, ManualClock } from "./local-world.ts";
import { generatedAic } from "./schema-check.ts";
import { ENDPOINT_NAMES, type EndpointName } from "./schemas.ts";
import type { AicService } from "./service.ts";

const A = "agent_helper";
const VALID: Record<EndpointName, Record<string, unknown>> = {
  observe: { agentId: A, roomId: "lobby", radius: 100, detail: "full" },
  moveTo: { agentId: A, roomId: "lobby", txId: "tx_fuzz_base_1", dest: { tx: 22, ty: 14 } },
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
};

const weird = fc.oneof(
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
  fc.string({ unit: "binary", maxLength: 300 }),
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
  return (service[endpoint] as (c: string, b: unknown) => Promise<unknown>).call(service, A, body);
}

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
