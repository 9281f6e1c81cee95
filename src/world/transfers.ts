// Portals between worlds (docs/cluster.md "Portals between gateways"). A traveller who steps on a
// portal to another world leaves this one in the tick, and the world records the handoff as state:
// in the tick log and in snapshots, so it outlives the gateway that stepped it. The host sends each
// outgoing record to the target world and marks it sent with a later input; the target applies an
// arrival once per transfer id (it remembers the ids it applied), so a record sent twice (a new
// owner re-sending what its predecessor sent but had not marked) places nobody twice.
import type { Transfer } from "./types.ts";

export type { Transfer };

/** Applied transfer ids remembered: far more than could arrive twice within a re-send (a re-send
 * follows a failover within seconds), bounded so the state does not grow with every arrival. */
export const APPLIED_TRANSFERS_KEPT = 4096;
/** Unsent transfers kept. A cluster host sends each within a tick or two of its commit (and cannot
 * commit at all while NATS is unreachable), so only a world run without a cluster, whose portal to
 * another world leads nowhere, reaches it: its state must not grow with every trip. */
export const OUTBOX_KEPT = 4096;
/** Travellers remembered by where they went (an agent's later request is sent there). */
export const DEPARTURES_KEPT = 4096;

export function transferId(fromWorld: string, tick: number, entityId: string): string {
  return `${fromWorld}:${tick}:${entityId}`;
}

/** The world's transfer state. Plain data in insertion order, so snapshots are deterministic. */
export class TransferBook {
  /** Recorded, not yet marked sent, in the order they were made. */
  outgoing: Transfer[] = [];
  /** Ids of arrivals applied here, oldest first. */
  applied: string[] = [];
  private appliedSet = new Set<string>();
  /** entityId -> the world it left for (newest last). */
  departed = new Map<string, string>();

  depart(transfer: Transfer): void {
    this.outgoing.push(transfer);
    if (this.outgoing.length > OUTBOX_KEPT) this.outgoing.shift();
    this.departed.delete(transfer.entityId);
    this.departed.set(transfer.entityId, transfer.toWorld);
    if (this.departed.size > DEPARTURES_KEPT) {
      const oldest = this.departed.keys().next().value as string;
      this.departed.delete(oldest);
    }
  }

  /** Drops the named records from the outbox; returns how many it held. */
  markSent(ids: readonly string[]): number {
    const sent = new Set(ids);
    const before = this.outgoing.length;
    this.outgoing = this.outgoing.filter((t) => !sent.has(t.id));
    return before - this.outgoing.length;
  }

  wasApplied(id: string): boolean {
    return this.appliedSet.has(id);
  }

  /** An arrival placed here: its id is remembered, and the traveller is back from wherever it went. */
  arrived(id: string, entityId: string): void {
    this.applied.push(id);
    this.appliedSet.add(id);
    while (this.applied.length > APPLIED_TRANSFERS_KEPT) this.appliedSet.delete(this.applied.shift()!);
    this.departed.delete(entityId);
  }

  /** Joined again here by any door: no longer elsewhere. */
  returned(entityId: string): void {
    this.departed.delete(entityId);
  }

  /** Snapshot part; absent when empty, so worlds without portals to other worlds hash as before. */
  state(): TransferState | undefined {
    if (this.outgoing.length === 0 && this.applied.length === 0 && this.departed.size === 0) return undefined;
    return {
      outgoing: this.outgoing.map((t) => ({ ...t, tile: { ...t.tile } })),
      applied: [...this.applied],
      departed: [...this.departed],
    };
  }

  restore(state: TransferState | undefined): void {
    this.outgoing = (state?.outgoing ?? []).map((t) => ({ ...t, tile: { ...t.tile } }));
    this.applied = [...(state?.applied ?? [])];
    this.appliedSet = new Set(this.applied);
    this.departed = new Map(state?.departed ?? []);
  }
}

export interface TransferState {
  outgoing: Transfer[];
  applied: string[];
  departed: [string, string][];
}
