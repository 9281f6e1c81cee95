import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOCS_DIR, GENERATED_DOCUMENTS } from "../../scripts/gen-schemas.ts";
import { buildOpenApi, serializeDocument } from "./documents.ts";
import { ENDPOINT_NAMES, endpointPath } from "./endpoints.ts";
import examples from "./fixtures/prd-examples.json" with { type: "json" };
import { EVENT_DEFS, generatedAic, generatedEvents } from "./schema-check.ts";
import * as schemas from "./schemas.ts";
import { checkResponse, oracleAic, oracleAicSchema, oracleEvents } from "./testing/oracle.ts";

const zodByDef = schemas as unknown as Record<string, { safeParse(v: unknown): { success: boolean } }>;

describe("generated documents", () => {
  it.each(Object.keys(GENERATED_DOCUMENTS))(
    "docs/aic/v0.1/%s is up to date (npm run gen:schemas)",
    (file) => {
      const build = GENERATED_DOCUMENTS[file as keyof typeof GENERATED_DOCUMENTS];
      expect(readFileSync(`${DOCS_DIR}${file}`, "utf8")).toBe(serializeDocument(build()));
    },
  );

  it("OpenAPI lists every endpoint, the SSE stream and itself, with the error responses", () => {
    const doc = buildOpenApi() as {
      openapi: string;
      paths: Record<string, Record<string, { responses: object }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const name of ENDPOINT_NAMES) {
      const op = doc.paths[`/aic/v0.1/${endpointPath(name)}`]?.post;
      expect(op, name).toBeDefined();
      expect(Object.keys(op!.responses)).toEqual([
        "200",
        "307",
        "400",
        "401",
        "403",
        "404",
        "405",
        "413",
        "429",
        "500",
      ]);
      // Cluster mode sends a caller on to the owning gateway: the 307 says where.
      expect(op!.responses, name).toHaveProperty(["307", "headers", "Location"]);
    }
    expect(doc.paths["/aic/v0.1/join"]).toBeDefined();
    expect(doc.paths["/aic/v0.1/leave"]).toBeDefined();
    expect(doc.paths["/aic/v0.1/events/stream"]?.get).toBeDefined();
    expect(doc.paths["/aic/v0.1/openapi.json"]?.get).toBeDefined();
  });

  it("the generated schema keeps every oracle $def name", () => {
    const oracle = oracleAicSchema() as { $defs: Record<string, unknown> };
    const generated = JSON.parse(readFileSync(`${DOCS_DIR}aic-schema.json`, "utf8"));
    for (const name of Object.keys(oracle.$defs)) expect(generated.$defs, name).toHaveProperty(name);
  });
});

describe("PRD examples (fixtures/prd-examples.json)", () => {
  for (const example of examples.examples) {
    it(`${example.name} validates against the generated schema, the oracle and zod`, () => {
      if ("wrapper" in example && example.wrapper) {
        expect(checkResponse(example.def, example.payload)).toEqual([]);
        const data = (example.payload as { data: unknown }).data;
        expect(zodByDef[example.def]!.safeParse(data).success).toBe(true);
        expect(schemas.Result.safeParse(example.payload).success).toBe(true);
      } else {
        expect(generatedAic(example.def, example.payload).errors).toBe("");
        expect(oracleAic(example.def, example.payload).errors).toBe("");
        expect(zodByDef[example.def]!.safeParse(example.payload).success).toBe(true);
      }
    });
  }

  it("the PRD event payloads validate against generated and oracle event schemas", () => {
    const poll = examples.examples.find((e) => e.name === "pollEvents response")!;
    const events = (poll.payload as unknown as { data: { events: { type: string; payload: unknown }[] } })
      .data.events;
    expect(events.length).toBe(2);
    for (const event of events) {
      const def = EVENT_DEFS[event.type]!;
      expect(generatedEvents(def, event.payload).valid).toBe(true);
      expect(oracleEvents(def, event.payload).valid).toBe(true);
    }
  });
});

// PRD 10.1: each invalid request must be rejected by zod, by the generated schema and by the oracle.
const base = {
  observe: { agentId: "a1", roomId: "lobby", radius: 100, detail: "full" },
  moveTo: { agentId: "a1", roomId: "lobby", txId: "tx_abcdefgh", dest: { tx: 1, ty: 2 } },
  interact: { agentId: "a1", roomId: "lobby", txId: "tx_abcdefgh", targetId: "obj_sign", action: "read" },
  chatSend: { agentId: "a1", roomId: "lobby", txId: "tx_abcdefgh", channel: "global", message: "hi" },
  chatObserve: { agentId: "a1", roomId: "lobby", windowSec: 60 },
  pollEvents: { agentId: "a1", roomId: "lobby", sinceCursor: "c_0" },
} as const;
const DEFS = {
  observe: "ObserveRequest",
  moveTo: "MoveToRequest",
  interact: "InteractRequest",
  chatSend: "ChatSendRequest",
  chatObserve: "ChatObserveRequest",
  pollEvents: "PollEventsRequest",
} as const;

const INVALID_VARIANTS: [keyof typeof base, string, Record<string, unknown>][] = [
  ["observe", "radius below min", { radius: 0.5 }],
  ["observe", "radius above max", { radius: 2000.5 }],
  ["observe", "detail not in enum", { detail: "medium" }],
  ["observe", "unknown key", { extra: 1 }],
  ["observe", "agentId pattern", { agentId: "bad id" }],
  ["moveTo", "dest tx negative", { dest: { tx: -1, ty: 0 } }],
  ["moveTo", "dest ty above max", { dest: { tx: 0, ty: 100001 } }],
  ["moveTo", "dest not integer", { dest: { tx: 1.5, ty: 0 } }],
  ["moveTo", "txId without prefix", { txId: "abcdefghij" }],
  ["moveTo", "txId too short", { txId: "tx_abc" }],
  ["moveTo", "txId bad char", { txId: "tx_abcdefgh!" }],
  ["moveTo", "mode not walk", { mode: "run" }],
  ["interact", "action empty", { action: "" }],
  ["interact", "action too long", { action: "a".repeat(65) }],
  ["interact", "targetId pattern", { targetId: "sign" }],
  ["chatSend", "message empty", { message: "" }],
  ["chatSend", "message too long", { message: "m".repeat(501) }],
  ["chatSend", "channel enum", { channel: "whisper" }],
  ["chatObserve", "windowSec 0", { windowSec: 0 }],
  ["chatObserve", "windowSec 301", { windowSec: 301 }],
  ["pollEvents", "limit 0", { limit: 0 }],
  ["pollEvents", "limit 201", { limit: 201 }],
  ["pollEvents", "waitMs above max", { waitMs: 25001 }],
  ["pollEvents", "cursor bad chars", { sinceCursor: "c 0!" }],
  ["pollEvents", "cursor too long", { sinceCursor: "a".repeat(257) }],
  ["pollEvents", "cursor empty", { sinceCursor: "" }],
];

describe("PRD 10.1 invalid requests are rejected by zod, generated and oracle schemas alike", () => {
  it.each(INVALID_VARIANTS)("%s: %s", (endpoint, _label, patch) => {
    const body = { ...base[endpoint], ...patch };
    const def = DEFS[endpoint];
    expect(zodByDef[def]!.safeParse(body).success).toBe(false);
    expect(generatedAic(def, body).valid).toBe(false);
    expect(oracleAic(def, body).valid).toBe(false);
  });

  it.each(Object.keys(base) as (keyof typeof base)[])("%s base request is valid everywhere", (endpoint) => {
    const def = DEFS[endpoint];
    expect(zodByDef[def]!.safeParse(base[endpoint]).success).toBe(true);
    expect(generatedAic(def, base[endpoint]).valid).toBe(true);
    expect(oracleAic(def, base[endpoint]).valid).toBe(true);
  });

  it("the expect extension validates in the generated schema only (documented extension)", () => {
    const body = {
      ...base.moveTo,
      expect: { tick: 3, entityNear: { entityId: "obj_sign", withinTiles: 2 } },
    };
    expect(schemas.MoveToRequest.safeParse(body).success).toBe(true);
    expect(generatedAic("MoveToRequest", body).valid).toBe(true);
    expect(oracleAic("MoveToRequest", body).valid).toBe(false);
    expect(
      schemas.MoveToRequest.safeParse({ ...base.moveTo, expect: { tick: 1, stale: true } }).success,
    ).toBe(false);
  });
});

describe("world signals in the heartbeat: strict and bounded in zod and the generated schema alike", () => {
  const answer = (patch: Record<string, unknown>) => ({
    self: { roomId: "lobby", place: { id: "plaza", name: "Plaza" }, tile: { tx: 1, ty: 2 } },
    delta: {},
    signals: { plaza: { chat: 3, arrive: 2 } },
    suggestions: [],
    contextToken: "AQAAAAAAiwGcRNl3VAAJJ8A.PlxZiG9fr3U_xB8O",
    timeOfDay: { part: "night", clock: "00:00" },
    serverTsMs: 5,
    ...patch,
  });
  const valid = (data: unknown) => {
    const zodOk = schemas.HeartbeatResponseData.safeParse(data).success;
    const generatedOk = generatedAic("HeartbeatResponseData", data).valid;
    expect(generatedOk).toBe(zodOk);
    return zodOk;
  };

  it("accepts the answer a heartbeat gives", () => {
    expect(valid(answer({}))).toBe(true);
    expect(
      valid(answer({ signals: undefined, self: { roomId: "lobby", tile: { tx: 0, ty: 0 }, moving: true } })),
    ).toBe(true);
  });

  it.each([
    ["more than 3 regions", { signals: { a: { chat: 1 }, b: { chat: 1 }, c: { chat: 1 }, d: { chat: 1 } } }],
    ["a zero count (zero counts are left out)", { signals: { plaza: { chat: 0 } } }],
    ["an unknown kind", { signals: { plaza: { teleport: 1 } } }],
    ["a region id that is not one", { signals: { "Big Plaza": { chat: 1 } } }],
    ["a bad self.place", { self: { roomId: "lobby", place: { id: "", name: "x" }, tile: { tx: 1, ty: 2 } } }],
    [
      "moving: false (left out instead)",
      { self: { roomId: "lobby", tile: { tx: 1, ty: 2 }, moving: false } },
    ],
    ["the older self.region", { self: { roomId: "lobby", region: "plaza", tile: { tx: 1, ty: 2 } } }],
    ["the old per-type counts", { delta: { counts: {} } }],
    ["no time of day", { timeOfDay: undefined }],
    ["a clock past 23:59", { timeOfDay: { part: "night", clock: "24:00" } }],
    ["a part of the day that is not one", { timeOfDay: { part: "noon", clock: "12:00" } }],
  ])("refuses %s", (_what, patch) => {
    expect(valid(answer(patch))).toBe(false);
  });
});
