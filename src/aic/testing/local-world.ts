// A real, fresh world behind an AicService, stepped by hand: the conformance CLI's in-process mode
// and the service / HTTP / tools tests run on it. Deterministic: nothing ticks unless asked.
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import type { WorldDefinition } from "../../world/types.ts";
import { World } from "../../world/world.ts";
import type { EventFeedLimits } from "../event-feed.ts";
import { type RateLimitConfig, RateLimiter } from "../rate-limit.ts";
import { type AicClock, AicService, type AicServiceDeps } from "../service.ts";

let lobby: Promise<WorldDefinition> | undefined;

export function lobbyDefinition(): Promise<WorldDefinition> {
  lobby ??= loadWorldDir(BUNDLED_WORLD_DIR);
  return lobby;
}

export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A manual clock for long-poll / timeout tests: timers fire only when advanced. */
export class ManualClock implements AicClock {
  now = 0;
  nowMs(): number {
    return this.now;
  }
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

/** Resolves once the requests made so far were admitted: a read's admission waits for the write of
 * its turn's rate-limit grants (setImmediate), so what it does next (park a long-poll, submit an
 * embedded action) happens one event-loop turn later. */
export function admitted(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface TestEnv {
  world: World;
  runtime: WorldRuntime;
  service: AicService;
  limiter: RateLimiter;
  /** Run one tick once the requests made before it were `admitted`, and return what the promise
   * resolved to. */
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
    eventFeedLimits?: EventFeedLimits;
    /** The runtime's input queue bound (default DEFAULT_MAX_QUEUED_INPUTS). */
    maxQueuedInputs?: number;
    beforeCall?: AicServiceDeps["beforeCall"];
  } = {},
): Promise<TestEnv> {
  const definition = { ...(await lobbyDefinition()), ...(options.patch ?? {}) };
  const world = World.create(definition);
  const runtime = new WorldRuntime(world, silentLogger, undefined, options.maxQueuedInputs);
  const limiter = new RateLimiter({
    ...(options.rateLimits ?? { disabled: true }),
    ...(options.limiterNow ? { now: options.limiterNow } : {}),
  });
  const service = new AicService({
    runtime,
    agents: options.agents ?? ((id) => TEST_AGENTS[id]),
    limiter,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.eventFeedLimits ? { eventFeedLimits: options.eventFeedLimits } : {}),
    ...(options.beforeCall ? { beforeCall: options.beforeCall } : {}),
  });
  const tick = async <T>(pending: Promise<T>): Promise<T> => {
    await admitted();
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
      const joined = agentIds.map((id) => service.call("join", id, { agentId: id, roomId: "lobby" }));
      runtime.stepNow();
      for (const result of await Promise.all(joined)) {
        if (result.status !== "ok") throw new Error(`join failed: ${JSON.stringify(result)}`);
      }
    },
  };
}
