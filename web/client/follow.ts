// The follow page (docs/follow.md): one agent's world for its owner. The live client's scene (the
// same map, people, tags, bubbles and objects as /world/) with the camera on the agent, fed by the
// follow API's stream instead of a WebSocket; beside it what the agent perceived, its turns, its
// reflections and its budgets. Opened with the agent's AIC token (typed here, or `#token=`) or a
// follow link (`#key=`); the fragment never reaches the server, every read sends it as a header.
// The answers' shapes are the server's own (type-only: nothing of the server is bundled).
import type { FollowedEvent, FollowedTurn } from "../../src/http/follow-routes.ts";
import type { Marker } from "../../src/http/replay-routes.ts";
import type { Reflection } from "../../src/world/memory.ts";
import { startGame } from "./game.ts";
import { type WireEntity, type WireObject, type WireRoom, WorldScene } from "./scene.ts";
import { mountTableBoards } from "./table-boards.ts";

interface View {
  agentId: string;
  entityId: string;
  name: string;
  kind: string;
  present: boolean;
  roomId?: string;
  room?: WireRoom;
  entities?: WireEntity[];
  objects?: WireObject[];
  cursor?: string;
  memory: { reflections: Reflection[]; episodes: { text: string; tsMs: number }[] };
  budgets: {
    rates: { rateClass: string; tokensLeft: number; burst: number }[];
    turns?: Record<string, unknown>;
  };
  turnsKept: boolean;
  /** The world's time when it was read. */
  time?: number;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const fragment = new URLSearchParams(location.hash.slice(1));
let credential: Record<string, string> = fragment.get("key")
  ? { "x-ocw-follow-key": fragment.get("key")! }
  : fragment.get("token")
    ? { authorization: `Bearer ${fragment.get("token")}` }
    : {};
/** Lines kept in each list. */
const MAX_LINES = 200;

class Refused extends Error {}

async function api<T>(route: string, params: Record<string, string | undefined> = {}): Promise<T> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  const res = await fetch(`/openclawworld/follow/api${route}?${query}`, { headers: credential });
  const answer = (await res.json()) as { status: string; data?: T; error?: { message: string } };
  if (res.status === 401 || res.status === 403) throw new Refused(answer.error?.message ?? "refused");
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

interface WatchFrame {
  present: boolean;
  tick: number;
  time?: number;
  room?: WireRoom;
  entities?: WireEntity[];
  objects?: WireObject[];
}

const state = {
  agentId: "",
  entityId: "",
  roomId: "",
  entities: [] as WireEntity[],
  events: [] as FollowedEvent[],
  turns: [] as FollowedTurn[],
  reflections: [] as string[],
  streaming: false,
  olderBefore: undefined as number | undefined,
  /** "Watch again": the stretch shown instead of the live world, and the tick drawn. */
  watching: undefined as { segment: number; from: number; to: number; tickRate: number } | undefined,
  watchTick: -1,
  moments: [] as FollowedEvent[],
};
/** What the page shows, for tests and the curious. */
(window as unknown as { ocwFollow: unknown }).ocwFollow = Object.assign(state, {
  drawn: () => scene.snapshot().map((a) => ({ id: a.id, tx: a.tx, ty: a.ty, name: a.name })),
  daylight: () => scene.daylightState(),
  lamps: () => scene.lampsState(),
});
/** The game tables of the room shown, as boards (live, or at the tick watched again). */
const showTables = mountTableBoards($("follow-games"), $("follow-games-section"));

function status(text: string): void {
  $("follow-status").textContent = text;
}

function line(list: HTMLElement, text: string, data: Record<string, string>, first = false): HTMLElement {
  const li = document.createElement("li");
  li.textContent = text;
  Object.assign(li.dataset, data);
  if (first) list.prepend(li);
  else list.append(li);
  while (list.children.length > MAX_LINES) (first ? list.lastElementChild : list.firstElementChild)?.remove();
  return li;
}

function showEvents(events: FollowedEvent[], live: boolean): void {
  const list = $("follow-events");
  for (const e of events) {
    state.events.push(e);
    line(list, e.words, { type: e.type, seq: String(e.seq) });
    if (live) scene.lightAt(e.tsMs);
    if (live && e.type === "chat.message")
      scene.say(String(e.payload.fromEntityId), String(e.payload.message));
    // An object changed (a door, a move at a game table): drawn in its new state.
    if (live && e.type === "object.state_changed") {
      const p = e.payload;
      scene.patchObject(
        String(p.objectId),
        p.patch as { op: string; path: string; value?: unknown }[],
        Number(p.version),
        p.affords as WireObject["affords"] | undefined,
      );
      showTables(scene.objectsShown());
    }
  }
  state.events.splice(0, Math.max(0, state.events.length - MAX_LINES));
  list.scrollTop = list.scrollHeight;
}

function showTurn(turn: FollowedTurn, newest: boolean): void {
  if (newest) state.turns.unshift(turn);
  else state.turns.push(turn);
  const li = document.createElement("li");
  Object.assign(li.dataset, { kind: turn.kind, name: turn.name, ok: String(turn.status === "ok") });
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = turn.words;
  const asked = document.createElement("pre");
  asked.textContent = `${turn.kind === "turn" ? "woken by, and told" : "asked"}: ${turn.request}`;
  const told = document.createElement("pre");
  told.textContent = `${turn.kind === "turn" ? "took" : "answered"}: ${turn.answer}`;
  details.append(summary, asked, told);
  li.append(details);
  const list = $("follow-turns");
  if (newest) list.prepend(li);
  else list.append(li);
}

function showMemoryAndBudgets(view: View): void {
  state.reflections = view.memory.reflections.map((r) => r.content);
  $("follow-reflections").replaceChildren();
  for (const r of [...view.memory.reflections].reverse())
    line($("follow-reflections"), r.content, { id: r.id, importance: String(r.importance) });
  const budgets = $("follow-budgets");
  budgets.replaceChildren();
  for (const b of view.budgets.rates)
    line(budgets, `${b.rateClass}: ${b.tokensLeft} of ${b.burst} left`, { rateClass: b.rateClass });
  if (view.budgets.turns)
    for (const [k, v] of Object.entries(view.budgets.turns))
      line(budgets, `${k}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`, { turns: k });
  if (!view.turnsKept) line($("follow-turns"), "this world keeps no turns (replay is off)", {});
}

/** The agent now: its room drawn with the camera on it, what it perceived since `cursor`. */
async function load(): Promise<void> {
  const view = await api<View>("/view");
  document.body.dataset.phase = "following";
  Object.assign(state, { agentId: view.agentId, entityId: view.entityId, roomId: view.roomId ?? "" });
  $("follow-name").textContent = `${view.name} (${view.kind})`;
  $("follow-where").textContent = view.present ? `in ${view.room?.name ?? view.roomId}` : "not in the world";
  showMemoryAndBudgets(view);
  if (view.room && view.entities && view.objects) {
    state.entities = view.entities;
    await scene.whenReady;
    await scene.loadRoom(view.room, view.entityId, view.entities, view.objects);
    scene.lightAt(view.time);
  }
  showTables(view.objects ?? []);
  if (view.present) {
    const page = await api<{ events: FollowedEvent[] }>("/events", { cursor: "0" });
    $("follow-events").replaceChildren();
    state.events = [];
    showEvents(page.events, false);
  }
}

async function loadTurns(before?: number): Promise<void> {
  const page = await api<{ turns: FollowedTurn[]; before?: number }>("/turns", {
    ...(before === undefined ? {} : { before: String(before) }),
  });
  if (before === undefined) {
    state.turns = [];
    $("follow-turns").replaceChildren();
  }
  for (const t of page.turns) showTurn(t, false);
  state.olderBefore = page.before;
  $("follow-older").hidden = page.before === undefined;
}

function onActors(entities: WireEntity[]): void {
  const present = new Set(entities.map((e) => e.id));
  for (const e of state.entities) if (!present.has(e.id)) scene.removeActor(e.id);
  for (const e of entities) scene.upsertActor(e);
  state.entities = entities;
}

let viewReading = false;
let viewStale = false;
/** Memory and budgets change with its turns: read them again after one (one read at a time; a turn
 * during a read is read again after it). */
function refreshView(): void {
  if (viewReading) {
    viewStale = true;
    return;
  }
  viewReading = true;
  viewStale = false;
  api<View>("/view")
    .then(showMemoryAndBudgets)
    .catch(() => {})
    .finally(() => {
      viewReading = false;
      if (viewStale) refreshView();
    });
}

/** The stream: SSE read by fetch (an EventSource cannot send the credential as a header). */
async function stream(): Promise<void> {
  const res = await fetch("/openclawworld/follow/api/stream", { headers: credential });
  if (!res.ok || !res.body) throw new Error(`stream: HTTP ${res.status}`);
  state.streaming = true;
  status("live");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      const payload = JSON.parse(data) as Record<string, unknown>;
      if (state.watching && event !== "turn") continue;
      if (event === "actors") onActors(payload.entities as WireEntity[]);
      else if (event === "events") showEvents(payload.events as FollowedEvent[], true);
      else if (event === "turn") {
        showTurn(payload as unknown as FollowedTurn, true);
        refreshView();
      } else if (event === "room") await load();
    }
  }
  state.streaming = false;
}

/** Follows until the page closes: a stream that ends (the gateway restarted) is opened again. */
async function follow(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await load();
      await loadTurns();
      attempt = 0;
      await stream();
    } catch (error) {
      state.streaming = false;
      if (error instanceof Refused) return signIn(error.message);
      status(`reconnecting (${(error as Error).message})`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** attempt)));
  }
}

/** The room it was in at `tick` of the stretch watched, drawn by the same scene. */
async function showWatched(tick: number): Promise<void> {
  const watching = state.watching;
  if (!watching) return;
  const frame = await api<WatchFrame>("/watch/frame", {
    segment: String(watching.segment),
    tick: String(Math.max(watching.from, Math.min(watching.to, tick))),
  });
  if (!state.watching) return;
  state.watchTick = frame.tick;
  $<HTMLInputElement>("follow-scrub").value = String(frame.tick);
  $("follow-tick").textContent = frame.present
    ? `tick ${frame.tick} · ${new Date(frame.time ?? 0).toISOString().slice(11, 19)}`
    : `tick ${frame.tick}: not in the world`;
  if (!frame.present || !frame.room || !frame.entities || !frame.objects) return;
  scene.lightAt(frame.time);
  if (frame.room.roomId !== state.roomId) {
    state.roomId = frame.room.roomId;
    await scene.loadRoom(frame.room, state.entityId, frame.entities, frame.objects);
  } else {
    onActors(frame.entities);
    for (const o of frame.objects) scene.upsertObject(o);
  }
  showTables(frame.objects);
  state.entities = frame.entities;
  for (const m of state.moments)
    if (m.type === "chat.message" && m.tick > tick - watching.tickRate * 3 && m.tick <= tick)
      scene.say(String(m.payload.fromEntityId), String(m.payload.message));
}

/** "Watch again": its last minutes, what it could perceive of them, scrubbed or played. */
async function watchAgain(): Promise<void> {
  const minutes = $<HTMLInputElement>("follow-minutes").value || "5";
  status("replaying…");
  const stretch = await api<{
    segment: number;
    from: number;
    to: number;
    tickRate: number;
    moments: Marker[];
  }>("/watch", { lastMinutes: minutes });
  state.watching = {
    segment: stretch.segment,
    from: stretch.from,
    to: stretch.to,
    tickRate: stretch.tickRate,
  };
  state.moments = stretch.moments.map((m) => ({
    seq: 0,
    tick: m.tick,
    tsMs: 0,
    type: m.kind === "chat" ? "chat.message" : m.kind,
    words: m.words ?? m.text,
    payload: m.kind === "chat" ? { fromEntityId: m.who, message: m.text } : {},
  }));
  document.body.dataset.phase = "watching";
  $("follow-replay").hidden = false;
  const scrub = $<HTMLInputElement>("follow-scrub");
  scrub.min = String(stretch.from);
  scrub.max = String(stretch.to);
  const list = $("follow-events");
  list.replaceChildren();
  for (const m of state.moments) {
    const li = line(list, `${m.tick} ${m.words}`, { type: m.type, tick: String(m.tick) });
    li.addEventListener("click", () => void showWatched(m.tick));
  }
  status(`watching ticks ${stretch.from}–${stretch.to} (${state.moments.length} moments)`);
  state.roomId = "";
  await showWatched(stretch.from);
}

let playing = false;
/** Plays the stretch at its own pace: a frame asked a few times a second. */
async function play(): Promise<void> {
  playing = !playing;
  $("follow-play").textContent = playing ? "Pause" : "Play";
  let last = performance.now();
  while (playing && state.watching) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = performance.now();
    const next = state.watchTick + Math.max(1, Math.round(((now - last) / 1000) * state.watching.tickRate));
    last = now;
    if (next > state.watching.to) break;
    await showWatched(next);
  }
  playing = false;
  $("follow-play").textContent = "Play";
}

async function backToLive(): Promise<void> {
  playing = false;
  state.watching = undefined;
  $("follow-replay").hidden = true;
  state.roomId = "";
  await load();
  status(state.streaming ? "live" : "");
}

function signIn(problem = ""): void {
  document.body.dataset.phase = "signin";
  $("follow-signin-error").textContent = problem;
}

$("follow-signin").addEventListener("submit", (event) => {
  event.preventDefault();
  credential = { authorization: `Bearer ${$<HTMLInputElement>("follow-token").value.trim()}` };
  void follow();
});
$("follow-older").addEventListener("click", () => void loadTurns(state.olderBefore));
$("follow-watch").addEventListener(
  "click",
  () => void watchAgain().catch((e) => status((e as Error).message)),
);
$("follow-scrub").addEventListener(
  "input",
  () => void showWatched(Number($<HTMLInputElement>("follow-scrub").value)),
);
$("follow-play").addEventListener("click", () => void play());
$("follow-live").addEventListener("click", () => void backToLive());

if (Object.keys(credential).length > 0) void follow();
else signIn();
