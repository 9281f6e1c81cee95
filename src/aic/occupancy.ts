// Slots held per agent and in all: long-polls parked at once, event streams open at once. Each is a
// connection (a file descriptor, a listener on every tick, buffered output), so one agent token must
// not be able to open them without end: 2,000 streams from one token once all stayed open.

export interface OccupancyLimits {
  perAgent: number;
  total: number;
}

export type Slot = { ok: true; release(): void } | { ok: false; scope: "agent" | "total"; limit: number };

export class Occupancy {
  private readonly limits: OccupancyLimits;
  private readonly byAgent = new Map<string, number>();
  private held = 0;

  constructor(limits: OccupancyLimits) {
    this.limits = limits;
  }

  /** A slot for `agentId`, released once (later calls do nothing), or which bound refused it. */
  take(agentId: string): Slot {
    const mine = this.byAgent.get(agentId) ?? 0;
    if (mine >= this.limits.perAgent) return { ok: false, scope: "agent", limit: this.limits.perAgent };
    if (this.held >= this.limits.total) return { ok: false, scope: "total", limit: this.limits.total };
    this.byAgent.set(agentId, mine + 1);
    this.held += 1;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.held -= 1;
        const left = (this.byAgent.get(agentId) ?? 1) - 1;
        if (left > 0) this.byAgent.set(agentId, left);
        else this.byAgent.delete(agentId);
      },
    };
  }

  /** Whether `agentId` holds a slot now. */
  holds(agentId: string): boolean {
    return this.byAgent.has(agentId);
  }

  /** Slots held now: by everyone, and by how many agents. */
  stats(): { held: number; agents: number } {
    return { held: this.held, agents: this.byAgent.size };
  }
}
