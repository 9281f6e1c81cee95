// The load harness's crowd, in-process: N agents in the bundled lobby walking its plaza (the tile box
// `npm run load` uses), each picking a new destination now and then. Seeded (an LCG), so a bench and
// a test drive the very same crowd. Used by bench/crowd.bench.ts and the proximity tests.
import type { Input, WorldEvent } from "../types.ts";
import type { World } from "../world.ts";

/** The harness's walk box (scripts/lib/load.ts DEFAULT_BOX). */
export const PLAZA = { tx0: 16, ty0: 11, tx1: 28, ty1: 20 } as const;

export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export class Crowd {
  readonly ids: string[];
  /** The events of the join ticks. */
  readonly joinEvents: WorldEvent[] = [];
  private readonly rand: () => number;
  private readonly busyUntil: Int32Array;
  private tick = 0;

  /** `n` agents `agt_crowd_<i>`, joined by 50 per tick (a join places them on spawn points). */
  constructor(world: World, n: number, seed = n) {
    this.rand = lcg(seed);
    this.ids = Array.from({ length: n }, (_, i) => `agt_crowd_${i}`);
    this.busyUntil = new Int32Array(n);
    for (let i = 0; i < n; i += 50) {
      const joins = this.ids
        .slice(i, i + 50)
        .map((entityId): Input => ({ kind: "join", entityId, actorKind: "agent", name: entityId }));
      this.joinEvents.push(...world.step(joins).events);
    }
  }

  /** This tick's moves: about one per 2 s per actor, the harness's pace (20 Hz: 1/40 per tick),
   * never while walking a fresh path. */
  inputs(): Input[] {
    const t = this.tick++;
    const inputs: Input[] = [];
    for (let i = 0; i < this.ids.length; i++) {
      if (this.busyUntil[i]! > t || this.rand() >= 1 / 40) continue;
      const dest = {
        tx: PLAZA.tx0 + Math.floor(this.rand() * (PLAZA.tx1 - PLAZA.tx0 + 1)),
        ty: PLAZA.ty0 + Math.floor(this.rand() * (PLAZA.ty1 - PLAZA.ty0 + 1)),
      };
      inputs.push({ kind: "moveTo", entityId: this.ids[i]!, dest });
      this.busyUntil[i] = t + 20;
    }
    return inputs;
  }
}
