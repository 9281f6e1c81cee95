// Agents that went quiet. A person's page going away is seen (the socket closes); an agent over HTTP
// or a tool just stops calling, and used to stand in the plaza for ever (the README's own curl lines
// left two idle robots there). Here an agent not heard from for `awayAfterMs` is marked away (the
// world's `away` mark: shown faded with "(away)"), and one quiet for `leaveAfterMs` leaves the world;
// where it stood is kept, and its next call brings it back there before the call is served, so an
// agent that comes back after a night finds itself where it was, as a person resuming does. Agents the
// world wakes (residents, wake targets) are quiet by design and left alone; one holding an event stream
// or a parked long-poll is listening, not quiet. Every change is an action down the one action path.
import { readFileSync } from "node:fs";
import { agentRateKey } from "../aic/admission.ts";
import type { Actor, AicService } from "../aic/service.ts";
import { replacePrivateFileSync } from "../runtime/private-files.ts";
import { AGENT_ENTITY_PREFIX, agentEntityId } from "../world/ids.ts";

export const QUIET_AGENTS_FILE = "quiet-agents.json";

/** At most this many departed agents are remembered (the oldest are forgotten first). */
const MAX_PARKED = 10_000;

export interface QuietAgentsOptions {
  service: Pick<AicService, "act" | "reads" | "listening">;
  /** Quiet this long (ms) and it is shown away; 0 never. */
  awayAfterMs: number;
  /** Quiet this long (ms) and it leaves the world until its next call; 0 never. */
  leaveAfterMs: number;
  /** Agents that are quiet by design (residents, agents woken by push). */
  exempt(agentId: string): boolean;
  nameOf(agentId: string): string;
  now(): number;
  /** Where departed agents' places are kept across restarts; in memory only without it. */
  file?: string;
  logger: { info(message: string): void; warn(message: string): void };
}

interface Place {
  roomId: string;
  tx: number;
  ty: number;
}

export class QuietAgents {
  private readonly options: QuietAgentsOptions;
  private readonly lastHeard = new Map<string, number>();
  private readonly parked: Map<string, Place>;
  /** A comeback or an "I am back" under way per agent: concurrent calls wait for the same one. */
  private readonly returning = new Map<string, Promise<void>>();
  private sweeping = false;

  constructor(options: QuietAgentsOptions) {
    this.options = options;
    this.parked = options.file ? readParked(options.file) : new Map();
  }

  /** The interval at which `sweep` is worth running: a tenth of the shorter limit, 1..30 s. */
  sweepEveryMs(): number {
    const limits = [this.options.awayAfterMs, this.options.leaveAfterMs].filter((ms) => ms > 0);
    if (limits.length === 0) return 0;
    return Math.min(30_000, Math.max(1000, Math.floor(Math.min(...limits) / 10)));
  }

  /** An agent called `endpoint`. Undefined when nothing is to be done first (the common case); else
   * what must finish before the call is served: a departed agent rejoins where it stood, an away one
   * is marked back. */
  heard(agentId: string, endpoint: string): Promise<void> | undefined {
    this.lastHeard.set(agentId, this.options.now());
    const pending = this.returning.get(agentId);
    if (pending) return pending;
    const place = this.parked.get(agentId);
    if (place && endpoint === "leave") {
      // It asked to leave: nothing to bring back.
      this.forget(agentId);
      return undefined;
    }
    let work: Promise<void> | undefined;
    if (place) work = this.comeBack(agentId, place);
    else if (this.options.service.reads.getEntity(agentEntityId(agentId))?.away)
      work = this.mark(agentId, false);
    if (!work) return undefined;
    const settled = work.finally(() => this.returning.delete(agentId));
    this.returning.set(agentId, settled);
    return settled;
  }

  /** Marks away the agents quiet past `awayAfterMs` and takes out those quiet past `leaveAfterMs`. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const { service, awayAfterMs, leaveAfterMs, exempt } = this.options;
      const now = this.options.now();
      const reads = service.reads;
      for (const roomId of Object.keys(reads.definition.rooms)) {
        for (const entity of reads.actorsInRoom(roomId)) {
          if (entity.kind !== "agent" || !entity.id.startsWith(AGENT_ENTITY_PREFIX)) continue;
          const agentId = entity.id.slice(AGENT_ENTITY_PREFIX.length);
          if (exempt(agentId) || this.returning.has(agentId)) continue;
          const last = this.lastHeard.get(agentId);
          // First seen here (after a restart too): its quiet starts now.
          if (last === undefined || service.listening(agentId)) {
            this.lastHeard.set(agentId, now);
            continue;
          }
          const quiet = now - last;
          if (leaveAfterMs > 0 && quiet >= leaveAfterMs) await this.depart(agentId, roomId, entity.tile);
          else if (awayAfterMs > 0 && quiet >= awayAfterMs && !entity.away) await this.mark(agentId, true);
        }
      }
    } finally {
      this.sweeping = false;
    }
  }

  /** Departed agents and where they stood (operator status, tests). */
  departed(): Record<string, Place> {
    return Object.fromEntries(this.parked);
  }

  private actor(agentId: string): Actor {
    return {
      entityId: agentEntityId(agentId),
      kind: "agent",
      name: this.options.nameOf(agentId),
      rateKey: agentRateKey(agentId),
    };
  }

  private async mark(agentId: string, away: boolean): Promise<void> {
    const answer = await this.options.service.act(this.actor(agentId), { kind: "away", away });
    if (answer.status !== "ok")
      this.options.logger.warn(
        `openclawworld: marking ${agentId} ${away ? "away" : "back"} failed: ${answer.error.code}`,
      );
  }

  private async depart(agentId: string, roomId: string, tile: { tx: number; ty: number }): Promise<void> {
    this.parked.delete(agentId);
    this.parked.set(agentId, { roomId, tx: tile.tx, ty: tile.ty });
    while (this.parked.size > MAX_PARKED) this.parked.delete(this.parked.keys().next().value!);
    this.save();
    const answer = await this.options.service.act(this.actor(agentId), { kind: "leave", roomId });
    if (answer.status !== "ok") {
      this.forget(agentId);
      this.options.logger.warn(`openclawworld: taking out quiet ${agentId} failed: ${answer.error.code}`);
      return;
    }
    this.lastHeard.delete(agentId);
    this.options.logger.info(
      `openclawworld: ${agentId} left ${roomId} after ${Math.round(this.options.leaveAfterMs / 1000)} s without a call; its next call brings it back`,
    );
  }

  private async comeBack(agentId: string, place: Place): Promise<void> {
    const answer = await this.options.service.act(this.actor(agentId), {
      kind: "join",
      joinRoomId: place.roomId,
      at: { tx: place.tx, ty: place.ty },
    });
    // A room gone from the world (a changed world) or a refusal: the agent joins as any agent does.
    this.forget(agentId);
    if (answer.status !== "ok")
      this.options.logger.warn(`openclawworld: bringing back ${agentId} failed: ${answer.error.code}`);
  }

  private forget(agentId: string): void {
    if (this.parked.delete(agentId)) this.save();
  }

  /** Written whole (a new file renamed over the old: never half written); rare (a departure or a
   * comeback) and small. A failure to write costs only the places after a restart. */
  private save(): void {
    const file = this.options.file;
    if (!file) return;
    try {
      replacePrivateFileSync(file, `${JSON.stringify({ departed: Object.fromEntries(this.parked) })}\n`);
    } catch (error) {
      this.options.logger.warn(`openclawworld: could not keep ${file}: ${(error as Error).message}`);
    }
  }
}

/** The places kept in `file`: none when it is missing or unreadable; entries that are not places
 * are left out. */
function readParked(file: string): Map<string, Place> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return new Map();
  }
  const departed = (parsed as { departed?: unknown } | null)?.departed;
  if (!departed || typeof departed !== "object") return new Map();
  const places = new Map<string, Place>();
  for (const [agentId, p] of Object.entries(departed as Record<string, unknown>)) {
    const place = p as Partial<Place> | null;
    if (place && typeof place.roomId === "string" && Number.isInteger(place.tx) && Number.isInteger(place.ty))
      places.set(agentId, { roomId: place.roomId, tx: place.tx!, ty: place.ty! });
  }
  return places;
}
