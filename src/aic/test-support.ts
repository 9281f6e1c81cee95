// Shared by the AIC tests: ajv validators for the generated schema and the PRD's oracle artifacts.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { buildAicSchema, buildEventsSchema } from "./documents.ts";

// A copy of the PRD's own schemas (seeds/artifacts), kept in the repo so a checkout runs on its own.
const ORACLE_DIR = fileURLToPath(new URL("./fixtures/prd-oracle/", import.meta.url));

export function oracleAicSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${ORACLE_DIR}aic-schema.json`, "utf8"));
}
export function oracleEventsSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(`${ORACLE_DIR}events-schema.json`, "utf8"));
}

export type Validate = (def: string, value: unknown) => { valid: boolean; errors: string };

function validatorFor(schema: Record<string, unknown>): Validate {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(schema);
  const id = schema.$id as string;
  return (def, value) => {
    const validate = ajv.getSchema(`${id}#/$defs/${def}`);
    if (!validate) throw new Error(`no $defs/${def} in ${id}`);
    const valid = validate(value) as boolean;
    return { valid, errors: valid ? "" : ajv.errorsText(validate.errors) };
  };
}

export const generatedAic = validatorFor(buildAicSchema());
export const generatedEvents = validatorFor(buildEventsSchema());
export const oracleAic = validatorFor(oracleAicSchema());
export const oracleEvents = validatorFor(oracleEventsSchema());

export const EVENT_DEFS: Record<string, string> = {
  "presence.join": "PresenceJoin",
  "presence.leave": "PresenceLeave",
  "proximity.enter": "ProximityEnter",
  "proximity.exit": "ProximityExit",
  "chat.message": "ChatMessage",
  "object.state_changed": "ObjectStateChanged",
};

/** Validate an AIC response wrapper: the Result wrapper, and `data` against the endpoint's data def;
 * events inside pollEvents data also against their payload defs. Checks generated AND oracle. */
export function checkResponse(
  dataDef: string,
  response: unknown,
  options: { oracle?: boolean } = {},
): string[] {
  const problems: string[] = [];
  const validators: [string, Validate, Validate][] = [["generated", generatedAic, generatedEvents]];
  if (options.oracle !== false) validators.push(["oracle", oracleAic, oracleEvents]);
  for (const [label, aic, events] of validators) {
    const wrapper = aic("Result", response);
    if (!wrapper.valid) problems.push(`${label} Result: ${wrapper.errors}`);
    const r = response as { status?: string; data?: unknown };
    if (r.status === "ok") {
      const data = aic(dataDef, r.data);
      if (!data.valid) problems.push(`${label} ${dataDef}: ${data.errors}`);
      const list = (r.data as { events?: { type: string; payload: unknown }[] }).events;
      for (const event of list ?? []) {
        const def = EVENT_DEFS[event.type];
        const check = def
          ? events(def, event.payload)
          : { valid: false, errors: `unknown type ${event.type}` };
        if (!check.valid) problems.push(`${label} event ${event.type}: ${check.errors}`);
      }
    }
  }
  return problems;
}

// ---- a real world for service / HTTP tests ------------------------------------------------------
import { loadWorldDir } from "../runtime/load-world-dir.ts";
import { WorldRuntime } from "../runtime/world-runtime.ts";
import type { WorldDefinition } from "../world/types.ts";
import { World } from "../world/world.ts";
import { type RateLimitConfig, RateLimiter } from "./rate-limit.ts";
import { type AicClock, AicService } from "./service.ts";

const LOBBY_DIR = fileURLToPath(new URL("../../worlds/lobby", import.meta.url));
let lobby: Promise<WorldDefinition> | undefined;

export function lobbyDefinition(): Promise<WorldDefinition> {
  lobby ??= loadWorldDir(LOBBY_DIR);
  return lobby;
}

export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A manual clock for long-poll / timeout tests: timers fire only when advanced. */
export class ManualClock implements AicClock {
  now = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  get pending(): number {
    return this.timers.size;
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.now) {
        this.timers.delete(id);
        timer.fn();
      }
    }
  }
}

export interface TestEnv {
  world: World;
  runtime: WorldRuntime;
  service: AicService;
  limiter: RateLimiter;
  /** Run one tick now and return what the promise resolved to. */
  tick<T>(pending: Promise<T>): Promise<T>;
  /** Join agents (a tick). */
  join(...agentIds: string[]): Promise<void>;
}

export const TEST_AGENTS: Record<string, { name: string }> = {
  agent_helper: { name: "Helper Bot" },
  agent_other: { name: "Other Bot" },
  agent_third: { name: "Third Bot" },
};

export async function createTestEnv(
  options: {
    rateLimits?: RateLimitConfig;
    limiterNow?: () => number;
    clock?: AicClock;
    patch?: Partial<WorldDefinition>;
    /** Who is provisioned; default TEST_AGENTS. */
    agents?: (agentId: string) => { name: string } | undefined;
  } = {},
): Promise<TestEnv> {
  const definition = { ...(await lobbyDefinition()), ...(options.patch ?? {}) };
  const world = World.create(definition);
  const runtime = new WorldRuntime(world, silentLogger);
  const limiter = new RateLimiter({
    ...(options.rateLimits ?? { disabled: true }),
    ...(options.limiterNow ? { now: options.limiterNow } : {}),
  });
  const service = new AicService({
    runtime,
    agents: options.agents ?? ((id) => TEST_AGENTS[id]),
    limiter,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const tick = async <T>(pending: Promise<T>): Promise<T> => {
    runtime.stepNow();
    return pending;
  };
  return {
    world,
    runtime,
    service,
    limiter,
    tick,
    async join(...agentIds) {
      const joined = agentIds.map((id) => service.join(id, { agentId: id, roomId: "lobby" }));
      runtime.stepNow();
      for (const result of await Promise.all(joined)) {
        if (result.status !== "ok") throw new Error(`join failed: ${JSON.stringify(result)}`);
      }
    },
  };
}
