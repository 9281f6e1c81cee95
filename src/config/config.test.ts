import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { MANIFEST_FILE, manifestConfigIsCurrent } from "../../scripts/gen-schemas.ts";
import {
  BUNDLED_WORLD_DIR,
  ConfigError,
  PluginConfigSchema,
  pluginConfigJsonSchema,
  resolveConfig,
} from "./config.ts";

describe("plugin config: one zod schema", () => {
  it("openclaw.plugin.json's configSchema is generated from it (npm run gen:schemas)", () => {
    expect(manifestConfigIsCurrent(readFileSync(MANIFEST_FILE, "utf8"))).toBe(true);
  });

  it("an empty config resolves to the documented defaults", () => {
    expect(resolveConfig(undefined)).toEqual({
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      worldDir: BUNDLED_WORLD_DIR,
      defaultRoomId: "lobby",
      watchWorld: false,
      agents: {},
      residents: {},
      residentBudget: { maxTurnsPerHour: 240, talkTurnsPerHour: 6, talkPairIntervalSec: 1200 },
      wakeTargets: {},
      wakeDelivery: {
        allowedHosts: [],
        allowPrivateNetworks: false,
        timeoutMs: 5000,
        maxAttempts: 4,
        retryBaseMs: 500,
        queuePerTarget: 16,
        breakerFailures: 5,
        breakerCooldownMs: 30_000,
      },
      tools: { enabled: [], denied: [], perAgent: {}, timeoutMs: 30_000 },
      web: {
        resumeGraceSec: 30,
        maxConnections: 200,
        maxConnectionsPerAddress: 20,
        maxHumans: 200,
        maxHumansPerAddress: 20,
        allowedOrigins: [],
        allowedHosts: [],
        maxVisible: 64,
        fanout: "process",
      },
      events: {
        parkedPollsPerAgent: 4,
        parkedPollsTotal: 2000,
        streamsPerAgent: 4,
        streamsTotal: 1000,
        streamMaxBufferedKiB: 1024,
        streamSlowReaderSec: 10,
      },
      quietAgents: { awayAfterSec: 300, leaveAfterSec: 3600 },
      rateLimits: { disabled: false, classes: {} },
      snapshot: { enabled: true, intervalSec: 60, fsync: true },
      replay: { enabled: true, keepHours: 24, maxMegabytes: 1024, agentTurnsMegabytes: 64 },
    });
  });

  it("a resident gets its defaults, and its home room is the default room unless named", () => {
    const config = resolveConfig({
      defaultRoomId: "garden",
      residents: { guide: { name: "Guide", look: 3, home: { tx: 17, ty: 12 } } },
    });
    expect(config.residents.guide).toEqual({
      name: "Guide",
      look: 3,
      home: { roomId: "garden", tx: 17, ty: 12 },
      wake: { nearby: true, name: true, approach: false, residents: false },
      returnHomeAfterSec: 60,
      minIntervalSec: 3,
      maxTurnsPerHour: 60,
      turnTimeoutSec: 120,
      prepareTurns: true,
      maxModelRequestsPerTurn: 8,
      maxTurnsPerPersonPerHour: 20,
      sessionTurns: 4,
    });
    expect(() => resolveConfig({ residents: { guide: { name: "Guide" } } })).toThrow(
      /residents\.guide\.home/,
    );
    expect(() =>
      resolveConfig({ residents: { guide: { name: "G", home: { tx: 1, ty: 1 }, look: 8 } } }),
    ).toThrow(/look/);
  });

  it("normalises what the plugin uses: tool spellings, agent names, the remote URL", () => {
    const config = resolveConfig({
      agents: { bot: { token: "a-token-of-16-chars" } },
      tools: { enabled: ["ocw.move_to"], perAgent: { scout: { enabled: ["ocw.chat_send"] } } },
      remote: { baseUrl: "http://127.0.0.1:1/aic/v0.1//" },
    });
    expect(config.agents.bot).toEqual({ token: "a-token-of-16-chars", name: "bot" });
    expect(config.tools.enabled).toEqual(["ocw_move_to"]);
    expect(config.tools.perAgent.scout).toEqual({ enabled: ["ocw_chat_send"], denied: [] });
    expect(config.remote).toEqual({
      baseUrl: "http://127.0.0.1:1/aic/v0.1",
      retryMaxAttempts: 3,
      retryBaseDelayMs: 500,
    });
  });

  it("is strict: unknown keys, wrong types and out-of-range values fail the load with their path", () => {
    expect(() => resolveConfig({ tickrate: 20 })).toThrow(ConfigError);
    expect(() => resolveConfig({ tickrate: 20 })).toThrow(/tickrate/);
    expect(() => resolveConfig({ web: { resumeGraceSec: -1 } })).toThrow(/web\.resumeGraceSec/);
    expect(() => resolveConfig({ defaultRoomId: "no spaces" })).toThrow(/defaultRoomId/);
    expect(() => resolveConfig({ agents: { bot: { token: "short" } } })).toThrow(/agents\.bot\.token/);
    expect(() => resolveConfig({ remote: { baseUrl: "ftp://x" } })).toThrow(/remote\.baseUrl/);
  });

  it("reads the PRD's own plugin config (flat baseUrl, apiKey, defaultRoomId, defaultAgentId) as remote mode", () => {
    const prd = {
      baseUrl: "https://world.example/aic/v0.1/",
      apiKey: "key-from-the-prd",
      defaultRoomId: "lobby_01",
      defaultAgentId: "agent_helper",
    };
    const config = resolveConfig(prd);
    expect(config.remote).toEqual({
      baseUrl: "https://world.example/aic/v0.1",
      apiKey: "key-from-the-prd",
      defaultAgentId: "agent_helper",
      retryMaxAttempts: 3,
      retryBaseDelayMs: 500,
    });
    expect(config.defaultRoomId).toBe("lobby_01");
    // The gateway validates with the manifest's JSON Schema first: it must accept the same shape.
    expect(new Ajv({ strict: false }).compile(pluginConfigJsonSchema())(prd)).toBe(true);
    // The same as written the project's way.
    expect(
      resolveConfig({
        remote: { baseUrl: prd.baseUrl, apiKey: prd.apiKey, defaultAgentId: prd.defaultAgentId },
      }).remote,
    ).toEqual(config.remote);
  });

  it("flat remote keys need baseUrl, and are not given beside remote", () => {
    expect(() => resolveConfig({ apiKey: "k" })).toThrow(/apiKey configure remote mode .* need baseUrl/);
    expect(() =>
      resolveConfig({
        baseUrl: "https://a.example/aic/v0.1",
        remote: { baseUrl: "https://b.example/aic/v0.1" },
      }),
    ).toThrow(/baseUrl and remote both configure remote mode/);
    expect(() => resolveConfig({ baseUrl: "ftp://x" })).toThrow(/baseUrl/);
  });

  it("adds the rules JSON Schema cannot say", () => {
    const twice = { a: { token: "same-token-16-chars" }, b: { token: "same-token-16-chars" } };
    expect(() => resolveConfig({ agents: twice })).toThrow(/two agents share a token/);
    expect(() => resolveConfig({ tools: { enabled: ["ocw_fly"] } })).toThrow(/unknown tool "ocw_fly"/);
    expect(() => resolveConfig({ tools: { disabled: ["ocw_observe"] } })).toThrow(/required tool/);
  });

  it("the gateway (JSON Schema) and the plugin (zod) agree on what is a well-formed config", () => {
    const ajv = new Ajv({ strict: false, useDefaults: true });
    const gateway = ajv.compile(pluginConfigJsonSchema());
    for (const config of [
      {},
      { tickRate: 20, defaultRoomId: "garden" },
      { tickRate: 30 },
      { web: { joinCode: "abc" } },
      { web: { joinCode: "let-me-in", resumeGraceSec: 0 } },
      { rateLimits: { classes: { observe: { perSec: 2, burst: 5 } } } },
      { rateLimits: { classes: { observe: { perSec: 0, burst: 5 } } } },
      { replay: { keepHours: 0 } },
      { snapshot: { intervalSec: 1 } },
      { remote: { baseUrl: "https://world.example/aic/v0.1", apiKey: "k" } },
      { remote: {} },
      { baseUrl: "https://world.example/aic/v0.1", apiKey: "k", defaultAgentId: "agent_helper" },
      { baseUrl: "world.example" },
      { agents: { "bad id": {} } },
      { unknown: true },
    ]) {
      const zodOk = PluginConfigSchema.safeParse(structuredClone(config)).success;
      expect(gateway(structuredClone(config)), JSON.stringify(config)).toBe(zodOk);
    }
  });
});

describe("plugin config: cluster", () => {
  const cluster = {
    servers: ["nats://127.0.0.1:4222"],
    gatewayId: "gw-a",
    publicBaseUrl: "http://127.0.0.1:18789/",
  };

  it("is off unless configured: the single-gateway store stays the default", () => {
    expect(resolveConfig({}).cluster).toBeUndefined();
  });

  it("fills the lease, snapshot and replica defaults and trims the base URL", () => {
    expect(resolveConfig({ cluster }).cluster).toEqual({
      ...cluster,
      publicBaseUrl: "http://127.0.0.1:18789",
      leaseTtlMs: 3000,
      snapshotEveryTicks: 1200,
      replicas: 1,
    });
  });

  it("refuses mixed credentials, a half user/password pair and ids NATS cannot carry", () => {
    expect(() =>
      resolveConfig({ cluster: { ...cluster, token: "t0ken", user: "u", password: "p" } }),
    ).toThrow(/token or user\/password/);
    expect(() => resolveConfig({ cluster: { ...cluster, user: "u" } })).toThrow(/go together/);
    expect(() => resolveConfig({ cluster: { ...cluster, gatewayId: "a.b" } })).toThrow(ConfigError);
    expect(() => resolveConfig({ cluster: { ...cluster, rooms: ["town*"] } })).toThrow(ConfigError);
    expect(() => resolveConfig({ cluster: { ...cluster, servers: [] } })).toThrow(ConfigError);
  });
});
