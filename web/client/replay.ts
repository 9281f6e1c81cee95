// The operator's replay page: the live client's scene (map, people and agents with their
// tags, bubbles, doors and objects) fed with frames the gateway re-simulates for a tick, instead of a
// WebSocket. Pick a room and a stretch; play, pause, change speed, step one tick, scrub, or click a
// marker to jump there. The operator link's key is in the address's fragment; every read sends it.
// The answers' shapes are the server's own (type-only: nothing of the server is bundled).

import type { StoredAgentTurn } from "../../src/aic/reads.ts";
import type { Frame, Marker } from "../../src/http/replay-routes.ts";
import { agentEntityId } from "../../src/world/ids.ts";
import { CREATURE_TYPE } from "../../src/world/objects/creature.ts";
import { isolate } from "./bidi.ts";
import { startGame } from "./game.ts";
import { drawMarkers, type MarkerItem } from "./replay-markers.ts";
import { WorldScene } from "./scene.ts";
import { mountTableBoards } from "./table-boards.ts";

/** A turn as the page is served it: as kept, and in words (names, not ids). */
type ReplayedTurn = StoredAgentTurn & { words: string };

interface Overview {
  tickRate: number;
  rooms: { roomId: string; name: string }[];
  stretches: { segment: number; firstTick: number; lastTick: number }[];
  runs: { id: number; label: string; start: { tick: number } }[];
  checkpoints: { label: string | null; tick: number }[];
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const fragment = new URLSearchParams(location.hash.slice(1));
const key = fragment.get("key") ?? "";
/** An opened export (`openclaw ocw replay open`, or an upload here): every read names it. */
let file = fragment.get("file") ?? "";
/** A bubble shows a chat said at most this long before the tick shown. */
const BUBBLE_TICKS = 60;

async function api<T>(route: string, params: Record<string, string | number | undefined> = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...params, file }))
    if (v !== undefined && v !== "") query.set(k, String(v));
  return answered<T>(
    await fetch(`/openclawworld/replay/api${route}?${query}`, { headers: { "x-ocw-replay-key": key } }),
  );
}

async function answered<T>(res: Response): Promise<T> {
  const answer = (await res.json()) as { status: string; data?: T; error?: { message: string } };
  if (!res.ok || answer.status !== "ok") throw new Error(answer.error?.message ?? `HTTP ${res.status}`);
  return answer.data as T;
}

const scene = new WorldScene();
scene.setCallbacks({
  moveTo: () => {},
  interact: () => {},
  moveIntent: () => {},
  typing: () => false,
  worldPointer: () => {},
  place: () => {},
  hover: () => {},
});
startGame(scene);

const state = {
  tickRate: 20,
  segment: 0,
  from: 0,
  to: 0,
  tick: -1,
  roomId: "",
  markers: [] as Marker[],
  /** The agent followed, and its turns in the stretch. */
  agent: "",
  turns: [] as ReplayedTurn[],
  frame: undefined as Frame | undefined,
  playing: false,
  loading: false,
};
/** What the page shows, for tests and the curious: the tick, the frame, and the actors as drawn. */
(window as unknown as { ocwReplay: unknown }).ocwReplay = Object.assign(state, {
  drawn: () => scene.snapshot().map((a) => ({ id: a.id, tx: a.tx, ty: a.ty, name: a.name, look: a.look })),
  screenPoint: (tx: number, ty: number) => scene.screenPoint(tx, ty),
  daylight: () => scene.daylightState(),
  lamps: () => scene.lampsState(),
});
/** The room's game tables at the tick shown, as boards. */
const showTables = mountTableBoards($("replay-games"));

function status(text: string): void {
  $("replay-status").textContent = text;
}

/** Shows the frame of `tick` (re-simulated by the gateway). */
async function show(tick: number): Promise<void> {
  const target = Math.max(state.from, Math.min(state.to, tick));
  state.loading = true;
  try {
    const frame = await api<Frame>("/frame", { segment: state.segment, tick: target, room: state.roomId });
    await draw(frame);
  } catch (error) {
    status((error as Error).message);
    state.playing = false;
  } finally {
    state.loading = false;
  }
}

async function draw(frame: Frame): Promise<void> {
  const before = state.frame;
  const previous = state.tick;
  const jumped = !before || frame.tick < previous || frame.tick - previous > BUBBLE_TICKS;
  if (!before || before.room.roomId !== frame.room.roomId) {
    await scene.whenReady;
    await scene.loadRoom(frame.room, "", frame.entities, frame.objects);
    const { widthTiles, heightTiles, tileSize } = frame.room;
    scene.cameras.main.centerOn((widthTiles * tileSize) / 2, (heightTiles * tileSize) / 2);
  } else {
    const present = new Set(frame.entities.map((e) => e.id));
    for (const e of before.entities) if (!present.has(e.id)) scene.removeActor(e.id);
    for (const e of frame.entities) scene.upsertActor(e, jumped);
    const versions = new Map(before.objects.map((o) => [o.id, o.version]));
    // A creature moves without a new version: it is redrawn each frame.
    for (const o of frame.objects)
      if (versions.get(o.id) !== o.version || o.objectType === CREATURE_TYPE) scene.upsertObject(o);
  }
  // Bubbles: what was said since the last frame (after a jump: in the last few seconds).
  const since = jumped ? frame.tick - BUBBLE_TICKS : previous;
  for (const m of state.markers)
    if (m.kind === "chat" && m.who && m.tick > since && m.tick <= frame.tick) scene.say(m.who, m.text);
  scene.lightAt(frame.time);
  showTables(frame.objects);
  state.frame = frame;
  state.tick = frame.tick;
  $<HTMLInputElement>("replay-scrub").value = String(frame.tick);
  $("replay-tick").textContent = `tick ${frame.tick} · ${new Date(frame.time).toISOString().slice(11, 19)}`;
  for (const list of [$("replay-events"), $("replay-turns")])
    for (const li of list.children)
      (li as HTMLElement).dataset.current = String(Number((li as HTMLElement).dataset.tick) === frame.tick);
}

/** The agents with turns in the open stretch (the choice kept when it still has some). */
async function loadAgents(): Promise<void> {
  const answer = await api<{ agents: { agentId: string; turns: number }[] }>("/turns", {
    segment: state.segment,
    from: state.from,
    to: state.to,
  });
  const select = $<HTMLSelectElement>("replay-agent");
  const kept = state.agent;
  select.replaceChildren(new Option("none", ""));
  for (const a of answer.agents) select.append(new Option(`${a.agentId} (${a.turns})`, a.agentId));
  select.value = answer.agents.some((a) => a.agentId === kept) ? kept : "";
  await follow(select.value);
}

/** Follows an agent: its turns as markers under the timeline and, turn by turn, in the panel (what
 * it asked and what it was answered, what woke it); a click jumps to the tick it was answered on. */
async function follow(agentId: string): Promise<void> {
  state.agent = agentId;
  scene.watch(agentId ? agentEntityId(agentId) : "");
  const answer = agentId
    ? await api<{ turns: ReplayedTurn[] }>("/turns", {
        segment: state.segment,
        from: state.from,
        to: state.to,
        agent: agentId,
      })
    : { turns: [] };
  state.turns = answer.turns;
  const bar = $("replay-turn-markers");
  const list = $("replay-turns");
  list.replaceChildren();
  $("replay-turns-panel").hidden = !agentId;
  const items: MarkerItem[] = [];
  for (const t of answer.turns) {
    const label = `${t.tick}: ${t.words}`;
    const ok = String(t.status === "ok");
    items.push({ tick: t.tick, label, data: { kind: t.kind, seq: String(t.seq), ok } });
    const li = document.createElement("li");
    Object.assign(li.dataset, { kind: t.kind, tick: String(t.tick), seq: String(t.seq), ok });
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = label;
    summary.addEventListener("click", () => void show(t.tick));
    const asked = document.createElement("pre");
    asked.textContent = `${t.kind === "turn" ? "woken by" : "asked"}: ${t.request}`;
    const told = document.createElement("pre");
    told.textContent = `${t.kind === "turn" ? "took" : "answered"}: ${t.answer}`;
    details.append(summary, asked, told);
    li.append(details);
    list.append(li);
  }
  drawMarkers(bar, items, state, (tick) => void show(tick));
}

async function openStretch(): Promise<void> {
  const [kind, id] = $<HTMLSelectElement>("replay-stretch").value.split(":");
  const minutes = $<HTMLInputElement>("replay-minutes").value;
  const from = $<HTMLInputElement>("replay-from").value;
  const to = $<HTMLInputElement>("replay-to").value;
  const params: Record<string, string | number | undefined> = { room: state.roomId };
  if (kind === "run") params.run = id;
  else if (kind === "checkpoint") params.checkpoint = id;
  else params.segment = id;
  if (minutes) params.lastMinutes = minutes;
  else if (kind === "segment") Object.assign(params, { from, to });
  status("replaying…");
  const answer = await api<{ segment: number; from: number; to: number; markers: Marker[] }>(
    "/markers",
    params,
  );
  Object.assign(state, {
    segment: answer.segment,
    from: answer.from,
    to: answer.to,
    markers: answer.markers,
  });
  const scrub = $<HTMLInputElement>("replay-scrub");
  scrub.min = String(answer.from);
  scrub.max = String(answer.to);
  const bar = $("replay-markers");
  const list = $("replay-events");
  list.replaceChildren();
  const items: MarkerItem[] = [];
  for (const m of answer.markers) {
    const label = m.words
      ? `${m.tick} ${isolate(m.words)}`
      : `${m.tick} ${m.kind}${m.who ? ` ${isolate(m.who)}` : ""}: ${m.text}`;
    items.push({ tick: m.tick, label, data: { kind: m.kind } });
    const li = document.createElement("li");
    li.textContent = label;
    li.dataset.tick = String(m.tick);
    li.dataset.kind = m.kind;
    li.addEventListener("click", () => void show(m.tick));
    list.append(li);
  }
  drawMarkers(bar, items, answer, (tick) => void show(tick));
  status(`timeline ${answer.segment}, ticks ${answer.from}–${answer.to}, ${answer.markers.length} markers`);
  state.frame = undefined;
  await show(answer.from);
  await loadAgents();
}

/** Playing: frames are asked one at a time, each as far on as the speed says since the last. */
let lastPlayed = 0;
function play(now: number): void {
  if (state.playing && !state.loading && state.frame) {
    const speed = Number($<HTMLSelectElement>("replay-speed").value);
    const ticks = Math.max(1, Math.round(((now - lastPlayed) / 1000) * state.tickRate * speed));
    lastPlayed = now;
    if (state.tick >= state.to) setPlaying(false);
    else void show(state.tick + ticks);
  } else if (!state.loading) lastPlayed = now;
  requestAnimationFrame(play);
}

function setPlaying(on: boolean): void {
  state.playing = on;
  $("replay-play").textContent = on ? "Pause" : "Play";
}

/** The open stretch as one file, downloaded (replay-export.ts). */
async function exportStretch(): Promise<void> {
  const exported = await api<unknown>("/export", { segment: state.segment, from: state.from, to: state.to });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([JSON.stringify(exported)], { type: "application/json" }));
  link.download = `replay-${state.segment}-${state.from}-${state.to}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** An exported file opened here: checked and re-simulated by the gateway, then shown like history. */
async function openFile(chosen: File): Promise<void> {
  status("checking the file…");
  const opened = await answered<{ file: string }>(
    await fetch("/openclawworld/replay/api/open", {
      method: "POST",
      headers: { "x-ocw-replay-key": key, "content-type": "application/json" },
      body: await chosen.text(),
    }),
  );
  file = opened.file;
  await loadOverview();
  await openStretch();
}

async function loadOverview(): Promise<Overview> {
  const overview = await api<Overview>("/");
  state.tickRate = overview.tickRate;
  const stretches = $<HTMLSelectElement>("replay-stretch");
  stretches.replaceChildren();
  for (const s of [...overview.stretches].reverse())
    stretches.append(
      new Option(`timeline ${s.segment}: ticks ${s.firstTick}–${s.lastTick}`, `segment:${s.segment}`),
    );
  for (const r of overview.runs) stretches.append(new Option(`run ${r.id} ${r.label}`, `run:${r.id}`));
  for (const c of overview.checkpoints)
    if (c.label)
      stretches.append(new Option(`checkpoint ${c.label} (tick ${c.tick})`, `checkpoint:${c.label}`));
  $("replay-source").textContent = file ? `file ${file}` : "this world";
  return overview;
}

async function start(): Promise<void> {
  if (!key) {
    status("this page needs an operator link: run `openclaw ocw replay link`");
    return;
  }
  const overview = await loadOverview();
  const rooms = $<HTMLSelectElement>("replay-room");
  for (const r of overview.rooms) rooms.append(new Option(r.name, r.roomId));
  state.roomId = rooms.value;
  rooms.addEventListener("change", () => {
    state.roomId = rooms.value;
    void openStretch().catch((e: Error) => status(e.message));
  });
  $("replay-export").addEventListener(
    "click",
    () => void exportStretch().catch((e: Error) => status(e.message)),
  );
  $<HTMLInputElement>("replay-file").addEventListener("change", (e) => {
    const chosen = (e.target as HTMLInputElement).files?.[0];
    if (chosen) void openFile(chosen).catch((error: Error) => status(error.message));
  });
  $<HTMLSelectElement>("replay-agent").addEventListener("change", (e) => {
    void follow((e.target as HTMLSelectElement).value).catch((error: Error) => status(error.message));
  });
  $("replay-open").addEventListener("click", () => void openStretch().catch((e: Error) => status(e.message)));
  $("replay-play").addEventListener("click", () => setPlaying(!state.playing));
  $("replay-step").addEventListener("click", () => {
    setPlaying(false);
    void show(state.tick + 1);
  });
  $<HTMLInputElement>("replay-scrub").addEventListener("change", (e) => {
    void show(Number((e.target as HTMLInputElement).value));
  });
  requestAnimationFrame(play);
  if (overview.stretches.length > 0) {
    const minutes = $<HTMLInputElement>("replay-minutes");
    // A file opens whole; this world's history on its last five minutes.
    minutes.value = file ? "" : "5";
    await openStretch();
    minutes.value = "";
  } else status("the replay history holds nothing yet");
}

void start().catch((error: Error) => status(error.message));
