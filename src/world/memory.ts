// Agent memory (seed 003 section 3): reflections an agent stores about itself and the
// episodic entries the world derives from what the agent did and perceived. Memory is world state:
// it changes only inside World.step, is captured by snapshots and replayed from the tick log, and
// is bounded per agent. This module holds the limits, the scores and the per-agent store; the world
// decides when to record (world.ts), the contract decides who may read (src/aic).

/** Per-agent bounds and text limits (the AIC schemas take their numbers from here). */
export const MEMORY_LIMITS = {
  /** Reflections kept per agent; storing one more evicts the lowest-scored one (see evictionIndex). */
  reflections: 64,
  /** Episodic entries kept per agent: a ring, the oldest goes first. */
  episodes: 32,
  /** Characters of a reflection's content. */
  contentChars: 1000,
  /** Topics per reflection, and characters per topic. */
  topics: 8,
  topicChars: 40,
  /** Source event cursors per reflection. */
  sources: 16,
  /** Characters of an episode's text (longer chat is clipped with an ellipsis). */
  episodeChars: 160,
  /** Entries a working memory may ask for. */
  workingMemory: 20,
} as const;

/** A topic: a short ASCII tag, e.g. `governance`, `eastern_district`. */
export const TOPIC_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/;
/** A memory entry's id, unique within one agent's memory (`mem_<n>`, n increasing). */
export const MEMORY_ID_PATTERN = /^mem_[0-9]{1,15}$/;

/** What an episodic entry records. */
export const EPISODE_KINDS = ["entered", "moved", "used", "said", "heard", "met", "parted"] as const;
export type EpisodeKind = (typeof EPISODE_KINDS)[number];

/** The importance the world gives each kind of episode (a reflection's importance is the agent's own
 * 0..1 judgement): being spoken to and what the agent did itself matter most, walking the least. */
export const EPISODE_IMPORTANCE: Record<EpisodeKind, number> = {
  heard: 0.6,
  said: 0.5,
  used: 0.5,
  met: 0.4,
  entered: 0.3,
  parted: 0.3,
  moved: 0.2,
};

/** Trimming weights: a reflection counts twice as much as an episode (seed 003: "2x weight"). */
export const REFLECTION_WEIGHT = 2;
export const EPISODE_WEIGHT = 1;
/** Recency halves every 10 minutes of simulation time. */
export const RECENCY_HALF_LIFE_MS = 10 * 60 * 1000;

/** The event a reflection was drawn from: a room and the seq of one of its events. */
export interface MemorySource {
  roomId: string;
  seq: number;
}

export interface Reflection {
  id: string;
  tsMs: number;
  content: string;
  topics: string[];
  sources: MemorySource[];
  importance: number;
}

export interface Episode {
  id: string;
  tsMs: number;
  what: EpisodeKind;
  text: string;
}

export type MemoryEntry = ({ kind: "reflection" } & Reflection) | ({ kind: "episode" } & Episode);

/** recency = 0.5 ^ (age / half-life), 1 for an entry of this instant (never above 1). */
export function recency(tsMs: number, nowMs: number): number {
  return 0.5 ** (Math.max(0, nowMs - tsMs) / RECENCY_HALF_LIFE_MS);
}

/** score = importance × weight × recency (weight 2 for a reflection, 1 for an episode). */
export function memoryScore(entry: MemoryEntry, nowMs: number): number {
  const importance = entry.kind === "reflection" ? entry.importance : EPISODE_IMPORTANCE[entry.what];
  const weight = entry.kind === "reflection" ? REFLECTION_WEIGHT : EPISODE_WEIGHT;
  return importance * weight * recency(entry.tsMs, nowMs);
}

/** Numeric part of a memory id: entries with a higher one were stored later. */
export function memorySeq(id: string): number {
  return Number(id.slice(4));
}

/** The working memory: the `limit` entries of highest score (ties: the newer, i.e. higher id, wins),
 * listed oldest first so they read as a story. Deterministic for the same memory and `nowMs`. */
export function selectWorkingMemory(
  memory: { reflections: readonly Reflection[]; episodes: readonly Episode[] },
  nowMs: number,
  limit: number,
): MemoryEntry[] {
  const all: { entry: MemoryEntry; score: number; seq: number }[] = [];
  for (const r of memory.reflections) {
    const entry: MemoryEntry = { kind: "reflection", ...r };
    all.push({ entry, score: memoryScore(entry, nowMs), seq: memorySeq(r.id) });
  }
  for (const e of memory.episodes) {
    const entry: MemoryEntry = { kind: "episode", ...e };
    all.push({ entry, score: memoryScore(entry, nowMs), seq: memorySeq(e.id) });
  }
  all.sort((a, b) => b.score - a.score || b.seq - a.seq);
  return all
    .slice(0, Math.max(0, Math.floor(limit)))
    .sort((a, b) => a.seq - b.seq)
    .map((x) => x.entry);
}

/** Which stored reflection to evict when a new one exceeds the cap: the lowest importance × recency
 * (weights are equal among reflections), ties the oldest. The new reflection itself is never
 * evicted: the agent just judged it worth keeping. */
export function evictionIndex(reflections: readonly Reflection[], nowMs: number): number {
  let worst = 0;
  let worstScore = Number.POSITIVE_INFINITY;
  for (let i = 0; i < reflections.length; i++) {
    const r = reflections[i]!;
    const score = r.importance * recency(r.tsMs, nowMs);
    if (score < worstScore) {
      worst = i;
      worstScore = score;
    }
  }
  return worst;
}

/** Clips text to `max` characters, ending with an ellipsis when cut (never splits a surrogate pair). */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${text.slice(0, cut)}…`;
}

/** One agent's memory. An entry is never changed once stored (snapshots share them). */
export class AgentMemory {
  nextId = 1;
  reflections: Reflection[] = [];
  episodes: Episode[] = [];

  private newId(): string {
    return `mem_${this.nextId++}`;
  }

  /** Stores a reflection; returns its id and the id of the reflection it evicted, if any. */
  reflect(fields: Omit<Reflection, "id">): { id: string; evicted?: string } {
    const reflection: Reflection = { id: this.newId(), ...fields };
    let evicted: string | undefined;
    if (this.reflections.length >= MEMORY_LIMITS.reflections) {
      const index = evictionIndex(this.reflections, fields.tsMs);
      evicted = this.reflections[index]!.id;
      this.reflections.splice(index, 1);
    }
    this.reflections.push(reflection);
    return evicted ? { id: reflection.id, evicted } : { id: reflection.id };
  }

  record(tsMs: number, what: EpisodeKind, text: string): void {
    if (this.episodes.length >= MEMORY_LIMITS.episodes) this.episodes.shift();
    this.episodes.push({ id: this.newId(), tsMs, what, text: clipText(text, MEMORY_LIMITS.episodeChars) });
  }
}
