// Short, model-readable texts for tool results; the full AIC data travels in `details`.
import { objectStateInWords } from "../aic/object-words.ts";

interface Tile {
  tx: number;
  ty: number;
}
interface Entity {
  id: string;
  kind: string;
  name: string;
  roomId: string;
  tile?: Tile;
  facing?: string;
  meta?: { place?: PlaceView; view?: string };
}
interface PlaceView {
  id: string;
  name: string;
  private?: true;
}

/** ` in the Café (private: only those inside hear you)`, or nothing outside named places. */
const inPlace = (place?: PlaceView) =>
  place ? ` in the ${place.name}${place.private ? " (private: only those inside hear you)" : ""}` : "";
interface Observed {
  entity: Entity;
  distance: number;
  affords: { action: string; label: string }[];
  object?: { objectType: string; state: Record<string, unknown> };
}

const MAX_LISTED = 25;
const at = (tile?: Tile) => (tile ? ` at (${tile.tx}, ${tile.ty})` : "");
const simTime = (ms: number) => new Date(ms).toISOString();

function objectNote(o: Observed): string {
  if (!o.object) return "";
  const { objectType, state } = o.object;
  if (objectType === "sign" && typeof state.text === "string") return ` — "${state.text}"`;
  if (objectType === "door") return state.open ? " — open" : " — closed";
  if (objectType === "portal" && typeof state.targetRoom === "string")
    return ` — leads to ${state.targetRoom}`;
  if (objectType === "seat") return state.occupant ? ` — taken by ${state.occupant}` : " — free";
  if (objectType === "private_room") return state.private ? " — the room is private" : " — the room is open";
  if (objectType === "notice_board" && Array.isArray(state.notes)) {
    const latest = state.notes.at(-1) as { name?: string; text?: string } | undefined;
    return ` — ${state.notes.length} note(s)${latest ? `, latest by ${latest.name}: "${latest.text}"` : ""}`;
  }
  const words = objectStateInWords(objectType, state);
  if (words) return ` — ${words}`;
  if (objectType === "garden_plot" && typeof state.stage === "string") return ` — ${gardenPlotNote(state)}`;
  if (objectType === "tour" && typeof state.finished === "number")
    return ` — a guided tour (read it for your progress, start it to begin); ${state.finished} finished so far`;
  if (objectType === "creature") return ` — ${state.called}, ${state.doing}`;
  return "";
}

/** A plot in a few words: its stage, whose, and whether it needs water now. */
function gardenPlotNote(state: Record<string, unknown>): string {
  if (state.stage === "empty") return "empty plot (plant)";
  const plant = `${state.wilted ? "wilted " : ""}${state.stage}, planted by ${state.planterName}`;
  return state.wilted ? `${plant}; needs water` : plant;
}

type MemoryView =
  | { kind: "reflection"; id: string; tsMs: number; content: string; topics: string[]; importance: number }
  | { kind: "episode"; id: string; tsMs: number; what: string; text: string };

/** The working memory, oldest first: reflections marked so a model tells beliefs from episodes. */
function memoryLines(memory: MemoryView[] | undefined): string[] {
  if (memory === undefined) return [];
  if (memory.length === 0) return ["Memory: nothing yet."];
  return [
    "Memory (oldest first):",
    ...memory.map((m) =>
      m.kind === "reflection"
        ? `- ${simTime(m.tsMs)} reflection (${m.importance}${m.topics.length ? `; ${m.topics.join(", ")}` : ""}): ${m.content}`
        : `- ${simTime(m.tsMs)} ${m.text}`,
    ),
  ];
}

export function formatReflection(data: {
  reflection: { id: string; importance: number; topics: string[] };
  evicted?: string;
}): string {
  const { id, importance, topics } = data.reflection;
  const about = topics.length ? ` about ${topics.join(", ")}` : "";
  const evicted = data.evicted ? ` To make room, ${data.evicted} was forgotten.` : "";
  return `Remembered ${id}${about} (importance ${importance}).${evicted}`;
}

export function formatObservation(data: {
  self: Entity;
  nearby: Observed[];
  serverTsMs: number;
  room: { roomId: string; mapId: string };
  memory?: MemoryView[];
}): string {
  const { self } = data;
  const lines = [
    `You are ${self.name} (${self.id}) in room ${self.roomId}${at(self.tile)}${inPlace(self.meta?.place)}, facing ${self.facing ?? "down"}. Sim time ${simTime(data.serverTsMs)}.`,
  ];
  if (!data.nearby.length) lines.push("Nothing and no one is within range.");
  else lines.push(`Nearby (${data.nearby.length}, nearest first):`);
  for (const o of data.nearby.slice(0, MAX_LISTED)) {
    const kind = o.object ? `${o.entity.kind}, ${o.object.objectType}` : o.entity.kind;
    const affords = o.affords.length ? `; can: ${o.affords.map((a) => a.action).join(", ")}` : "";
    lines.push(
      `- ${o.entity.name} [${kind} ${o.entity.id}]${at(o.entity.tile)}, ${Math.round(o.distance)} units away${objectNote(o)}${affords}`,
    );
  }
  if (data.nearby.length > MAX_LISTED)
    lines.push(`... and ${data.nearby.length - MAX_LISTED} more (see details).`);
  lines.push(...memoryLines(data.memory));
  lines.push(...viewLine(self.meta?.view));
  return lines.join("\n");
}

/** The view digest, said once so a model can guard its next action on it (expect.view). */
function viewLine(view: unknown): string[] {
  return typeof view === "string" ? [`View ${view} (for expect.view).`] : [];
}

interface Envelope {
  type: string;
  tsMs: number;
  payload: Record<string, unknown>;
}

function describeEvent(e: Envelope): string {
  const p = e.payload;
  switch (e.type) {
    case "presence.join":
      return `${p.name} (${p.kind} ${p.entityId}) arrived`;
    case "presence.leave":
      return `${p.entityId} left (${p.reason})`;
    case "proximity.enter":
      return `${p.otherId} came near ${p.subjectId} (${Math.round(Number(p.distance))} units)`;
    case "proximity.exit":
      return `${p.otherId} moved away from ${p.subjectId}`;
    case "chat.message":
      return `${p.fromEntityId} said on ${p.channel}: "${p.message}"`;
    case "object.state_changed":
      return `${p.objectId} (${p.objectType}) changed: ${JSON.stringify(p.patch)} (version ${p.version})`;
    default:
      return `${e.type} ${JSON.stringify(p)}`;
  }
}

export function formatEvents(data: { events: Envelope[]; nextCursor: string; serverTsMs: number }): string {
  if (!data.events.length) return `No new events (sim time ${simTime(data.serverTsMs)}).`;
  const lines = [`${data.events.length} event(s):`];
  for (const e of data.events.slice(0, MAX_LISTED)) lines.push(`- ${simTime(e.tsMs)} ${describeEvent(e)}`);
  if (data.events.length > MAX_LISTED)
    lines.push(`... and ${data.events.length - MAX_LISTED} more (see details).`);
  return lines.join("\n");
}

export function formatChat(data: {
  messages: { fromName: string; fromEntityId: string; channel: string; message: string; tsMs: number }[];
}): string {
  if (!data.messages.length) return "No chat messages you could hear in that window.";
  return data.messages
    .slice(-MAX_LISTED)
    .map((m) => `[${simTime(m.tsMs)}] ${m.fromName} (${m.fromEntityId}, ${m.channel}): ${m.message}`)
    .join("\n");
}

/** One region's recent activity: zero counts left out (RegionActivity). */
type Activity = Partial<Record<"move" | "chat" | "interact" | "arrive" | "depart", number>>;

interface HeartbeatView {
  self: { roomId: string; place?: PlaceView & { id: string }; tile: Tile; moving?: boolean; view?: string };
  delta: {
    arrived?: { id: string; name: string }[];
    departed?: { id: string; name: string }[];
    heard?: { from: string; name: string; channel: string; message: string }[];
    objects?: { id: string; state: Record<string, unknown> }[];
    move?: { dest: Tile; status: string };
    truncated?: boolean;
  };
  signals?: Record<string, Activity>;
  suggestions: { why: string; action: Record<string, unknown> }[];
  reset?: string;
  memory?: MemoryView[];
  timeOfDay?: { part: string; clock: string };
  closedPlaces?: { name: string; opensAt: string }[];
  action?: {
    status: string;
    data?: unknown;
    error?: { code: string; message: string; details?: Record<string, unknown> };
  };
}

/** `plaza: 3 chat, 2 arrive` (the counts in a fixed order). */
export function activityText(region: string, counts: Activity): string {
  const kinds = (["move", "chat", "interact", "arrive", "depart"] as const).filter((k) => counts[k]);
  return `${region}: ${kinds.map((k) => `${counts[k]} ${k}`).join(", ")}`;
}

/** The embedded action's outcome in words: its ids and times stay in `details`. */
function actionLine(action: NonNullable<HeartbeatView["action"]>): string {
  if (action.status !== "ok") {
    const error = action.error;
    const retry = Number(error?.details?.retryAfterMs);
    const when =
      error?.code === "rate_limited" && retry > 0 ? ` Try again in ${Math.ceil(retry / 1000)} s.` : "";
    return `Your action failed: ${error?.code} — ${error?.message}.${when}`;
  }
  const data = (action.data ?? {}) as { result?: string; outcome?: { type: string; message?: string } };
  if (data.outcome) {
    return `Your action: ${data.outcome.type}${data.outcome.message ? ` — ${data.outcome.message}` : ""}.`;
  }
  return `Your action: ${data.result ?? "done"}.`;
}

/** A heartbeat in a few lines: what changed, then what could be done next. */
export function formatHeartbeat(data: HeartbeatView): string {
  const { self, delta } = data;
  const where = self.place ? `${self.roomId}/${self.place.id}` : self.roomId;
  const when = data.timeOfDay ? ` It is ${data.timeOfDay.part} (${data.timeOfDay.clock}).` : "";
  const lines = [
    `In ${where}${at(self.tile)}${inPlace(self.place)}${self.moving ? ", walking" : ""}.${when}`,
  ];
  if (data.closedPlaces)
    lines.push(`Closed now: ${data.closedPlaces.map((p) => `${p.name} (opens ${p.opensAt})`).join(", ")}.`);
  if (data.reset) lines.push(`(Context ${data.reset}: changes are counted from now.)`);
  if (data.action) lines.push(actionLine(data.action));
  if (delta.move)
    lines.push(`Your move to (${delta.move.dest.tx}, ${delta.move.dest.ty}): ${delta.move.status}.`);
  if (delta.arrived) lines.push(`Came near: ${delta.arrived.map((e) => `${e.name} (${e.id})`).join(", ")}.`);
  if (delta.departed) lines.push(`Went away: ${delta.departed.map((e) => e.name).join(", ")}.`);
  for (const h of delta.heard ?? []) lines.push(`${h.name} (${h.from}, ${h.channel}): ${h.message}`);
  for (const o of delta.objects ?? []) lines.push(`${o.id} is now ${JSON.stringify(o.state)}`);
  const changed = delta.move || delta.arrived || delta.departed || delta.heard || delta.objects;
  if (!changed) lines.push("Nothing new near you.");
  if (delta.truncated) lines.push("(More happened than is listed.)");
  if (data.signals) {
    const regions = Object.entries(data.signals).map(([region, counts]) => activityText(region, counts));
    lines.push(`Last 60 s: ${regions.join("; ")}.`);
  }
  if (data.suggestions.length) {
    lines.push("You could (pass one as action):");
    for (const s of data.suggestions) lines.push(`- ${JSON.stringify(s.action)} — ${s.why}`);
  }
  lines.push(...memoryLines(data.memory));
  lines.push(...viewLine(self.view));
  return lines.join("\n");
}
