// Travellers between cluster rooms (docs/cluster.md, "Portals between gateways"). The world records
// a traveller that stepped through a portal to another world as state (src/world/transfers.ts);
// this side delivers it:
// - out: after each committed tick (acknowledged means durable), every recorded transfer not on its
//   way yet is published to the target room's subject with `Nats-Msg-Id` = the transfer id, and
//   once JetStream acknowledged it, marked sent by an input of a later tick. A new owner after a
//   failover finds the unmarked ones in the restored world and publishes them again: JetStream drops
//   a repeat within its duplicate window, and the target's own record of applied ids any later one.
// - in: the room's durable consumer hands each arrival to the next tick, and acknowledges the
//   message only once that tick is committed (the runtime answers an input only then). A message not
//   acknowledged (this gateway died or lost the room) is delivered again to the room's next owner.
import {
  AckPolicy,
  type ConsumerMessages,
  DeliverPolicy,
  type JetStreamClient,
  type JsMsg,
  jetstream,
  jetstreamManager,
} from "@nats-io/jetstream";
import { describe, type RuntimeLogger, type WorldRuntime } from "../runtime/world-runtime.ts";
import { OPERATOR_ENTITY_ID } from "../world/ids.ts";
import type { Transfer } from "../world/transfers.ts";
import type { InputResult } from "../world/types.ts";
import { type ClusterResources, transferSubject } from "./nats.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** How long an arrival may wait for its tick's commit before JetStream delivers it again. */
export const ARRIVAL_ACK_WAIT_MS = 30_000;
/** After a failed publish, the outbox waits this long before it tries that transfer again. */
const RETRY_AFTER_MS = 1_000;

export interface HandoffOptions {
  resources: ClusterResources;
  /** This cluster room: the subject its arrivals come on. */
  room: string;
  runtime: WorldRuntime;
  logger: RuntimeLogger;
}

/** What the host adds to a published record besides the world's transfer: a human traveller's
 * claim hash (src/http/humans/claims.ts), by which its browser is let in on the target. Not part of
 * the world's state: the target takes it off before the arrival goes into its tick. */
export interface TransferExtras {
  claimHash?: string;
}

export interface Handoff {
  /** Figures for the benchmark and status: transfers published and arrivals applied since the take. */
  readonly stats: { published: number; arrived: number; duplicates: number };
  /** Called with each arrival's result once its tick is committed (the benchmark's clock), and the
   * extras the record was published with. */
  onArrived(listener: (transfer: Transfer, result: InputResult, extras: TransferExtras) => void): void;
  /** The host's extras for a transfer it is about to publish (asked again on each retry: answer
   * the same, since JetStream keeps the first record stored under the transfer id). */
  sealWith(seal: (transfer: Transfer) => TransferExtras | undefined): void;
  /** Called once a transfer's record is stored in the transfer stream. */
  onSent(listener: (transfer: Transfer) => void): void;
  stop(): void;
}

/** The durable consumer of a room's arrivals: one per room, whichever gateway owns it. Consumer
 * names may not hold dots; room ids may. */
export function arrivalsConsumerName(room: string): string {
  return `arrivals_${room.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

export async function startHandoff(options: HandoffOptions): Promise<Handoff> {
  const { resources, room, runtime, logger } = options;
  const js = jetstream(resources.nc);
  const stats = { published: 0, arrived: 0, duplicates: 0 };
  const arrivedListeners: ((transfer: Transfer, result: InputResult, extras: TransferExtras) => void)[] = [];
  const sentListeners: ((transfer: Transfer) => void)[] = [];
  let seal: (transfer: Transfer) => TransferExtras | undefined = () => undefined;
  let stopped = false;

  const outbox = createOutbox(js, runtime, logger, stats, () => stopped, {
    seal: (t) => seal(t),
    sent: (t) => {
      for (const listener of sentListeners) listener(t);
    },
  });
  const stopOutbox = runtime.onTick(() => outbox());

  const messages = await consumeArrivals(resources, room);
  const inbox = (async () => {
    for await (const message of messages) {
      if (stopped) break;
      arrive(message);
    }
  })().catch((error: unknown) => {
    if (!stopped) logger.warn(`openclawworld: cluster room ${room}: arrivals stopped: ${describe(error)}`);
  });
  void inbox;

  function arrive(message: JsMsg): void {
    let transfer: Transfer;
    let extras: TransferExtras;
    try {
      const { claimHash, ...record } = JSON.parse(decoder.decode(message.data)) as Transfer & TransferExtras;
      transfer = record;
      extras = typeof claimHash === "string" ? { claimHash } : {};
    } catch {
      logger.warn(`openclawworld: cluster room ${room}: an arrival that is not JSON was dropped`);
      message.term();
      return;
    }
    const entityId = typeof transfer?.entityId === "string" ? transfer.entityId : "";
    runtime.submit({ kind: "arrive", entityId, transfer }).then(
      (result) => {
        if (result.ok) {
          if (result.value.kind === "arrive" && result.value.duplicate) stats.duplicates += 1;
          else stats.arrived += 1;
          message.ack();
        } else if (result.error.code === "bad_request") {
          // The world refuses its shape: no owner will ever apply it.
          logger.warn(
            `openclawworld: cluster room ${room}: arrival ${String(transfer?.id)} refused: ${result.error.message}`,
          );
          message.term();
        } else {
          message.nak(RETRY_AFTER_MS);
          return;
        }
        for (const listener of arrivedListeners) listener(transfer, result, extras);
      },
      () => {
        // Not committed (the room was lost, or its tick failed): whoever owns the room next gets it,
        // at once if this nak still reaches NATS, else when the ack wait runs out.
        try {
          message.nak(RETRY_AFTER_MS);
        } catch {
          // The connection is closing with the room: the ack wait redelivers it.
        }
      },
    );
  }

  return {
    stats,
    onArrived(listener) {
      arrivedListeners.push(listener);
    },
    sealWith(sealer) {
      seal = sealer;
    },
    onSent(listener) {
      sentListeners.push(listener);
    },
    stop() {
      stopped = true;
      stopOutbox();
      messages.stop();
    },
  };
}

/** A tick listener that publishes the committed world's unsent transfers and marks them sent. */
function createOutbox(
  js: JetStreamClient,
  runtime: WorldRuntime,
  logger: RuntimeLogger,
  stats: { published: number },
  stopped: () => boolean,
  host: { seal(t: Transfer): TransferExtras | undefined; sent(t: Transfer): void },
): () => void {
  /** Transfer ids on their way (published, or published and waiting for the mark's tick). */
  const inFlight = new Set<string>();
  /** Transfer id -> when its next publish may be tried after a failure. */
  const retryAt = new Map<string, number>();
  return () => {
    const now = performance.now();
    const due = runtime.world
      .outgoingTransfers()
      .filter((t) => !inFlight.has(t.id) && (retryAt.get(t.id) ?? 0) <= now);
    if (due.length === 0) return;
    for (const t of due) inFlight.add(t.id);
    Promise.allSettled(due.map((t) => publish(js, t, host.seal(t)))).then((outcomes) => {
      const sent: string[] = [];
      outcomes.forEach((outcome, i) => {
        const t = due[i]!;
        if (outcome.status === "fulfilled") {
          sent.push(t.id);
          stats.published += 1;
          retryAt.delete(t.id);
          host.sent(t);
        } else {
          inFlight.delete(t.id);
          retryAt.set(t.id, performance.now() + RETRY_AFTER_MS);
          if (!stopped())
            logger.warn(
              `openclawworld: transfer ${t.id} to ${t.toWorld} not sent yet: ${describe(outcome.reason)}`,
            );
        }
      });
      if (sent.length === 0 || stopped()) return;
      const done = () => {
        for (const id of sent) inFlight.delete(id);
      };
      // The mark is an input like any other: durable in the log, so the next owner does not send
      // these again (and if it does before the mark is stored, the target drops them).
      runtime.submit({ kind: "transfersSent", entityId: OPERATOR_ENTITY_ID, ids: sent }).then(done, done);
    });
  };
}

async function publish(
  js: JetStreamClient,
  transfer: Transfer,
  extras: TransferExtras | undefined,
): Promise<void> {
  const record = extras ? { ...transfer, ...extras } : transfer;
  await js.publish(transferSubject(transfer.toWorld), encoder.encode(JSON.stringify(record)), {
    msgID: transfer.id,
    timeout: 5_000,
  });
}

/** The room's durable arrivals consumer (created on first use; the same for every owner). */
async function consumeArrivals(resources: ClusterResources, room: string): Promise<ConsumerMessages> {
  const jsm = await jetstreamManager(resources.nc);
  const name = arrivalsConsumerName(room);
  try {
    await jsm.consumers.info(resources.transferStream, name);
  } catch {
    await jsm.consumers.add(resources.transferStream, {
      durable_name: name,
      // One subject as a string: nats-server 2.9 (Debian) knows filter_subject, not the list form.
      filter_subject: transferSubject(room),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ARRIVAL_ACK_WAIT_MS * 1_000_000,
    });
  }
  const consumer = await jetstream(resources.nc).consumers.get(resources.transferStream, name);
  return consumer.consume();
}
