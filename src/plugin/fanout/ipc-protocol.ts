// What the gateway and its browsers' fan-out process say to each other over the fork's IPC channel
// (structured clone: `serialization: "advanced"`). The gateway owns the world; the child owns the
// browsers' sockets and keeps a replica of the world, stepped with each committed tick's inputs.

import type { AicResult } from "../../aic/errors.ts";
import type { ActActionT, ActData, Actor } from "../../aic/service.ts";
import type { AdmissionLimits } from "../../http/humans/connection-admission.ts";
import type { SavedSession } from "../../http/humans/session.ts";
import type { PatchDelivery } from "../../http/humans/view-sync.ts";
import type { WorldDefinitionWire } from "../../world/definition-wire.ts";
import type { Input, WorldSnapshot } from "../../world/types.ts";

/** The web surface's options that cross the process boundary (plain data). */
export interface FanoutWebOptions {
  worldDir: string;
  tickRate?: number;
  webDistDir?: string;
  joinCode?: string;
  resumeGraceMs: number;
  looks: Record<string, number>;
  maxVisible: number;
  patchEveryTicks?: number;
  admission: AdmissionLimits;
  /** Whether sessions are kept durably (by the gateway, in the world's store). */
  persistSessions: boolean;
}

/** Wall-clock ms with the sub-millisecond part, the same clock in both processes: the IPC lag of a
 * tick is often below a millisecond, which Date.now() would round to 0. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

export type ToChild =
  /** `saved`: the durable session records, a departed one with where it left (session.ts). */
  | { type: "init"; options: FanoutWebOptions; saved: (SavedSession & { left?: unknown })[] }
  /** The whole world (at start, after an operator restore, or when the replica asked). */
  | {
      type: "world";
      snapshot: WorldSnapshot;
      /** The definition the snapshot is of: a live reload may have replaced the one the child loaded. */
      definition: WorldDefinitionWire;
    }
  /** One committed tick; `sentAtMs` (epoch ms) measures the IPC lag. */
  | {
      type: "tick";
      tick: number;
      inputs: readonly Input[];
      eventCount: number;
      load: number;
      sentAtMs: number;
    }
  | {
      type: "socket";
      method: string;
      url: string;
      headers: Record<string, string | string[] | undefined>;
      head: Uint8Array;
    }
  | { type: "results"; results: { id: number; result: AicResult<ActData> }[] }
  /** The session record `id` is in the gateway's store (`error`: it could not be kept). */
  | { type: "stored"; id: number; error?: string }
  /** Travellers between gateways (web-surface.ts `travel`, `expectArrival`). */
  | { type: "travel"; entityId: string; url: string }
  | { type: "arrival"; claimHash: string; entityId: string }
  | { type: "close" };

export interface FanoutStats {
  sessions: number;
  connected: number;
  connections: number;
  /** The child's own CPU time since it started, microseconds. */
  cpuUserUs: number;
  cpuSystemUs: number;
  /** Largest IPC lag of a tick message since the last report, ms. */
  ipcLagMaxMs: number;
  replicaTick: number;
  /** The child's memory now (process.memoryUsage): a leak shows in heapUsedBytes staying up after
   * load ends; rssBytes alone also holds what V8 keeps of its heap's high-water mark. */
  rssBytes: number;
  heapUsedBytes: number;
}

/** A browser's action on its way to AicService.act in the gateway, with the browser's txId. */
export interface ActRequest {
  id: number;
  actor: Actor;
  action: ActActionT;
  txId?: string;
}

export type ToParent =
  | { type: "ready" }
  | { type: "acts"; acts: ActRequest[] }
  /** Answered with "stored": the child hands out the resume token only once the record is durable. */
  | { type: "session"; op: "put"; id: number; key: string; value: unknown }
  | { type: "session"; op: "delete"; key: string }
  /** The replica does not match the tick it was sent: send the whole world again. */
  | { type: "resync"; reason: string }
  | { type: "stats"; stats: FanoutStats; patches: PatchDelivery[] }
  | { type: "log"; level: "info" | "warn" | "error"; message: string };
