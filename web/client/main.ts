// Boots the client: the join form, the WebSocket, the Phaser scene and the DOM panels (chat,
// presence, notices, sign card, touch pad). Text from the world is always set with textContent:
// markup never runs.
import * as Phaser from "phaser";
import { Connection, type ConnState, type ServerMessage } from "./net.ts";
import { type Notice, type NoticeKind, noticeForError, noticeForOutcome } from "./notices.ts";
import {
  naturalAction,
  type RadarDot,
  type WireEntity,
  type WireObject,
  type WireRoom,
  WorldScene,
} from "./scene.ts";
import { LOOKS } from "./textures.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

interface RosterEntry {
  id: string;
  name: string;
  kind: "human" | "agent";
  away?: boolean;
}

interface WireEvent {
  type: string;
  seq: number;
  payload: Record<string, unknown>;
}

const state = {
  status: "connecting" as ConnState,
  entityId: undefined as string | undefined,
  room: undefined as WireRoom | undefined,
  roster: new Map<string, RosterEntry>(),
  chat: [] as { from: string; fromName: string; channel: string; message: string }[],
  /** Chat lines already shown, by room and seq (history on join and live lines never double). */
  chatSeen: new Set<string>(),
  errors: [] as { code: string; message: string }[],
  notices: [] as Notice[],
  lastResult: undefined as unknown,
  joined: false,
};

const scene = new WorldScene();
const game = new Phaser.Game({
  type: Phaser.AUTO,
  parent: "game",
  backgroundColor: "#0b0f16",
  pixelArt: true,
  scale: { mode: Phaser.Scale.RESIZE, width: window.innerWidth, height: window.innerHeight },
  scene: [scene],
  banner: false,
});

// ---- DOM panels -------------------------------------------------------------------------------

function setStatus(s: ConnState, detail?: string): void {
  state.status = s;
  const el = $("conn");
  el.dataset.state = s;
  el.textContent = detail ?? s;
}

/** A quiet, non-modal notice, coloured by kind; a few at most, each fades by itself. */
function notify(text: string, kind: NoticeKind = "info"): void {
  state.notices.push({ text, kind });
  if (state.notices.length > 50) state.notices.shift();
  const li = document.createElement("li");
  li.textContent = text;
  li.dataset.kind = kind;
  const list = $("notices");
  list.append(li);
  while (list.children.length > 4) list.firstElementChild?.remove();
  window.setTimeout(() => li.classList.add("fading"), 3500);
  window.setTimeout(() => li.remove(), 4200);
}

/** A sign's text, on a card that stays while you read and closes when you walk away. */
let cardObject: WireObject | undefined;
function showCard(title: string, text: string, object?: WireObject): void {
  $("dialog-title").textContent = title;
  $("dialog-text").textContent = text;
  $("dialog").hidden = false;
  cardObject = object;
}
function hideCard(): void {
  $("dialog").hidden = true;
  cardObject = undefined;
}
$("dialog-close").addEventListener("click", hideCard);

function renderPresence(): void {
  const list = $("presence-list");
  list.replaceChildren(
    ...[...state.roster.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => {
        const li = document.createElement("li");
        li.textContent = r.name;
        li.title = `${r.name}${r.kind === "agent" ? " (AI agent)" : ""}${r.away ? " — away" : ""}`;
        li.dataset.kind = r.kind;
        li.dataset.id = r.id;
        if (r.away) li.dataset.away = "true";
        if (r.id === state.entityId) li.dataset.me = "true";
        return li;
      }),
  );
  $("presence-count").textContent = String(state.roster.size);
}

function addChatLine(fromName: string, channel: string, message: string, old = false): void {
  const li = document.createElement("li");
  if (old) li.dataset.history = "true";
  const chan = document.createElement("span");
  chan.className = "chan";
  chan.textContent = channel === "global" ? "room" : "near";
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = `${fromName}:`;
  who.title = fromName;
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = message;
  li.append(chan, who, text);
  // Long lines are clamped to three lines; a click shows the rest.
  if (message.length > 160) {
    li.dataset.long = "true";
    li.addEventListener("click", () => li.toggleAttribute("data-expanded"));
  }
  const log = $("chat-log");
  log.append(li);
  while (log.children.length > 200) log.firstElementChild?.remove();
  log.scrollTop = log.scrollHeight;
}

function onChatEvent(e: WireEvent, old: boolean): void {
  const p = e.payload;
  const key = `${state.room?.roomId}:${e.seq}`;
  if (state.chatSeen.has(key)) return;
  state.chatSeen.add(key);
  const from = String(p.fromEntityId);
  const fromName = String(p.fromName ?? from);
  const message = String(p.message);
  state.chat.push({ from, fromName, channel: String(p.channel), message });
  if (state.chat.length > 200) state.chat.shift();
  addChatLine(fromName, String(p.channel), message, old);
  if (!old) scene.say(from, message);
}

// ---- server messages --------------------------------------------------------------------------

function setRoster(roster: RosterEntry[]): void {
  state.roster = new Map(roster.map((r) => [r.id, r]));
  renderPresence();
}

async function enterRoom(
  room: WireRoom,
  entities: WireEntity[],
  objects: WireObject[],
  history: WireEvent[] = [],
): Promise<void> {
  const moved = state.room !== undefined && state.room.roomId !== room.roomId;
  state.room = room;
  $("room-name").textContent = room.name;
  hideCard();
  if (moved) notify(`You arrive in ${room.name}.`, "ok");
  for (const e of history) onChatEvent(e, true);
  await scene.whenReady;
  await scene.loadRoom(room, state.entityId!, entities, objects);
}

function nameOf(id: string): string {
  return state.roster.get(id)?.name ?? id;
}

function onEvents(events: WireEvent[]): void {
  for (const e of events) {
    const p = e.payload;
    if (e.type === "chat.message") onChatEvent(e, false);
    else if (e.type === "presence.join") {
      const id = String(p.entityId);
      const kind = p.kind === "agent" ? "agent" : "human";
      state.roster.set(id, { id, name: String(p.name), kind });
      renderPresence();
      if (id !== state.entityId)
        notify(`${String(p.name)}${kind === "agent" ? " (AI)" : ""} joined`, "social");
    } else if (e.type === "presence.leave") {
      const id = String(p.entityId);
      const name = nameOf(id);
      state.roster.delete(id);
      renderPresence();
      if (id !== state.entityId) notify(`${name} left`, "social");
    } else if (e.type === "object.state_changed") {
      scene.patchObject(
        String(p.objectId),
        p.patch as { op: string; path: string; value?: unknown }[],
        Number(p.version),
        p.affords as WireObject["affords"] | undefined,
      );
    }
  }
}

/** An interaction the player asked for. While `walking`, the player heads for `dest` (a tile the
 * server chose within reach of the object) and the interaction is sent again on arrival, once. */
let pending:
  | { objectId: string; action: string; walking: boolean; dest?: { tx: number; ty: number }; tries: number }
  | undefined;

function sendInteract(objectId: string, action: string): void {
  connection.send({ type: "interact", targetId: objectId, action });
}

function onResult(message: ServerMessage): void {
  state.lastResult = message;
  if (message.for === "approach") {
    if (!pending || pending.objectId !== message.data?.targetId) return;
    pending.dest = message.data.dest as { tx: number; ty: number };
    return;
  }
  if (message.for !== "interact") return;
  const outcome = message.data?.outcome as { type: string; message?: string } | undefined;
  if (!outcome) return;
  if (outcome.type === "too_far" && pending && pending.tries < 2) {
    pending.tries += 1;
    pending.walking = true;
    pending.dest = undefined;
    connection.send({ type: "approach", targetId: pending.objectId });
    notify("Walking over…", "info");
    return;
  }
  const target = pending ? scene.object(pending.objectId) : undefined;
  pending = undefined;
  if (target?.objectType === "sign" && outcome.type === "ok") {
    showCard(
      target.name.replace(/^sign[_ ]/, "").replace(/_/g, " ") || "Sign",
      outcome.message ?? "",
      target,
    );
    return;
  }
  // A portal's own message names the room by id; the arrival notice names it properly.
  if (target?.objectType === "portal" && outcome.type === "ok") return;
  const n = noticeForOutcome(outcome);
  if (n) notify(n.text, n.kind);
}

function onMessage(message: ServerMessage): void {
  switch (message.type) {
    case "welcome": {
      const first = !state.joined;
      state.entityId = message.entityId;
      state.joined = true;
      document.body.dataset.phase = "playing";
      connection.rememberResume(message.resumeToken);
      setStatus("online");
      $("join").hidden = true;
      setRoster(message.roster);
      void enterRoom(message.room, message.entities, message.objects, message.history).catch((e: Error) =>
        notify(e.message, "error"),
      );
      if (first && !message.resumed) showHint();
      break;
    }
    case "room":
      setRoster(message.roster);
      void enterRoom(message.room, message.entities, message.objects, message.history).catch((e: Error) =>
        notify(e.message, "error"),
      );
      break;
    case "delta":
      for (const e of (message.add ?? []) as WireEntity[]) scene.upsertActor(e);
      for (const u of (message.update ?? []) as (Partial<WireEntity> & { id: string })[])
        scene.updateActor(u);
      for (const id of (message.remove ?? []) as string[]) scene.removeActor(id);
      break;
    case "radar":
      scene.setRadar(
        (message.dots as [string, string, number, number][]).map(
          ([id, kind, tx, ty]): RadarDot => ({ id, kind: kind === "a" ? "agent" : "human", tx, ty }),
        ),
      );
      break;
    case "presence": {
      const r = state.roster.get(message.id);
      if (r) {
        r.away = message.away === true;
        renderPresence();
      }
      scene.setAway(message.id, message.away === true);
      if (r && message.id !== state.entityId)
        notify(message.away ? `${r.name} lost connection` : `${r.name} is back`, "social");
      break;
    }
    case "events":
      onEvents(message.events);
      break;
    case "result":
      onResult(message);
      break;
    case "error": {
      state.errors.push({ code: message.code, message: message.message });
      if (message.for === "join" && (message.code === "forbidden" || message.code === "conflict")) {
        connection.giveUp(message.message);
        showJoin(message.message, message.code === "forbidden");
        break;
      }
      if (message.for === "approach" || message.for === "interact") pending = undefined;
      const n = noticeForError(message.code, message.message);
      notify(n.text, n.kind);
      break;
    }
  }
}

const connection = new Connection({ onMessage, onState: setStatus });

/** Keys belong to the world again (after sending a chat line, a click on the map, or Escape). */
function releaseKeys(): void {
  const el = document.activeElement as HTMLElement | null;
  if (el && el !== document.body) el.blur();
  game.canvas?.focus?.();
}

scene.setCallbacks({
  moveTo(tx, ty) {
    pending = undefined;
    connection.send({ type: "click_to_move", destTx: tx, destTy: ty });
  },
  interact(objectId, action) {
    pending = { objectId, action, walking: false, tries: 0 };
    sendInteract(objectId, action);
  },
  moveIntent(dx, dy) {
    if (dx || dy) {
      pending = undefined;
      hideHint();
    }
    connection.send({ type: "move_intent", dx, dy });
  },
  typing() {
    const el = document.activeElement;
    return (
      el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    );
  },
  worldPointer() {
    releaseKeys();
  },
});

// Send a pending interaction again once the player stands on the tile the server chose; close a
// sign's card once its reader walked away from it.
game.events.on("step", () => {
  if (!state.entityId) return;
  const me = scene.snapshot().find((e) => e.id === state.entityId);
  if (!me || !state.room) return;
  if (cardObject && Math.max(Math.abs(me.tx - cardObject.tx), Math.abs(me.ty - cardObject.ty)) > 4)
    hideCard();
  if (!pending?.walking || !pending.dest) return;
  const size = state.room.tileSize;
  const at = { x: (pending.dest.tx + 0.5) * size, y: (pending.dest.ty + 0.5) * size };
  if (Math.abs(me.x - at.x) <= 2 && Math.abs(me.y - at.y) <= 2) {
    pending.walking = false;
    const target = scene.object(pending.objectId);
    sendInteract(pending.objectId, target ? (naturalAction(target) ?? pending.action) : pending.action);
  }
});

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("chat-input");
  const message = input.value.trim();
  if (!message) return;
  if (connection.send({ type: "chat_send", channel: $<HTMLSelectElement>("chat-channel").value, message })) {
    input.value = "";
    releaseKeys(); // WASD walks again right away
  } else notify("Not connected — your message was kept.", "warn");
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    hideCard();
    releaseKeys();
  } else if (event.key === "Enter" && document.activeElement === document.body && state.joined) {
    event.preventDefault();
    $("chat-input").focus();
  }
});
$("debug-toggle").addEventListener("click", () => {
  scene.toggleDebug();
  releaseKeys();
});
window.addEventListener("ocw:debug", (event) => {
  const on = (event as CustomEvent<boolean>).detail;
  const button = $("debug-toggle");
  button.setAttribute("aria-pressed", String(on));
  button.textContent = on ? "Collision: on" : "Collision: off";
});
// The notices sit below the minimap wherever the minimap is.
window.addEventListener("ocw:minimap", (event) => {
  const m = (event as CustomEvent<{ x: number; y: number; width: number; height: number }>).detail;
  document.documentElement.style.setProperty("--minimap-bottom", `${m.y + m.height + 8}px`);
  document.documentElement.style.setProperty("--minimap-width", `${m.width}px`);
});

// ---- hints and the touch pad -----------------------------------------------------------------

function showHint(): void {
  const touch = window.matchMedia("(pointer: coarse)").matches || window.innerWidth < 600;
  $("hint-text").textContent = touch
    ? "Use the pad or tap the map to walk. Tap signs, doors and portals. Chat below."
    : "Walk with WASD or click the map. Click signs, doors and portals. Enter to chat, Esc to walk again.";
  $("hint").hidden = false;
  window.setTimeout(hideHint, 12_000);
}
function hideHint(): void {
  $("hint").hidden = true;
}
$("hint-close").addEventListener("click", hideHint);

const PAD: Record<string, [number, number]> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
for (const button of document.querySelectorAll<HTMLButtonElement>("#touchpad button")) {
  const [dx, dy] = PAD[button.dataset.dir ?? ""] ?? [0, 0];
  const press = (event: PointerEvent) => {
    event.preventDefault();
    releaseKeys();
    button.setPointerCapture?.(event.pointerId);
    button.dataset.held = "true";
    scene.setTouchDir(dx, dy);
  };
  const release = () => {
    delete button.dataset.held;
    scene.setTouchDir(0, 0);
  };
  button.addEventListener("pointerdown", press);
  for (const type of ["pointerup", "pointercancel", "lostpointercapture"])
    button.addEventListener(type, release);
  button.addEventListener("contextmenu", (event) => event.preventDefault());
}

// ---- joining ----------------------------------------------------------------------------------

function renderLooks(): void {
  const saved = Number(localStorage.getItem("ocw.look") ?? "0");
  const box = $("join-looks");
  box.replaceChildren(
    ...LOOKS.map((look, index) => {
      const label = document.createElement("label");
      label.title = look.name;
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "look";
      input.value = String(index);
      input.checked = index === saved;
      input.setAttribute("aria-label", look.name);
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      const hex = (n: number) => `#${n.toString(16).padStart(6, "0")}`;
      swatch.style.background = `linear-gradient(${hex(look.hair)} 0 22%, ${hex(look.skin)} 22% 45%, ${hex(look.shirt)} 45% 75%, ${hex(look.legs)} 75%)`;
      label.append(input, swatch);
      return label;
    }),
  );
}

function chosenLook(): number | undefined {
  const picked = document.querySelector<HTMLInputElement>('#join-looks input[name="look"]:checked');
  return picked ? Number(picked.value) : undefined;
}

function showJoin(error = "", needCode = false): void {
  document.body.dataset.phase = "join";
  $("join").hidden = false;
  $("join-error").textContent = error;
  if (needCode) $("join-code").hidden = false;
  $("join-name").focus();
}

function join(name: string, code?: string, look?: number): void {
  localStorage.setItem("ocw.name", name);
  if (look !== undefined) localStorage.setItem("ocw.look", String(look));
  $("join").hidden = true;
  document.body.dataset.phase = "connecting";
  setStatus("connecting", "entering the world…");
  connection.start(name, code, look);
}

$("join").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $<HTMLInputElement>("join-name").value.trim();
  const code = $<HTMLInputElement>("join-code").value.trim();
  if (name) join(name, code || undefined, chosenLook());
});

renderLooks();
// On a phone the presence list starts folded (its summary still shows how many are here).
if (window.innerWidth < 600) $("presence").removeAttribute("open");
const params = new URLSearchParams(location.search);
const presetName = params.get("name") ?? undefined;
const presetLook = params.has("look") ? Number(params.get("look")) : undefined;
if (presetName)
  join(
    presetName.slice(0, 32),
    params.get("code") ?? undefined,
    presetLook !== undefined && presetLook >= 0 && presetLook < LOOKS.length ? presetLook : undefined,
  );
else {
  $<HTMLInputElement>("join-name").value = localStorage.getItem("ocw.name") ?? "";
  showJoin();
}

// A small read-only window into the client for tests and curious people.
(window as unknown as { __ocw: unknown }).__ocw = {
  get status() {
    return state.status;
  },
  get entityId() {
    return state.entityId;
  },
  get roomId() {
    return state.room?.roomId;
  },
  me() {
    return scene.snapshot().find((e) => e.id === state.entityId);
  },
  entities() {
    return scene.snapshot();
  },
  object(id: string) {
    return scene.object(id);
  },
  roster() {
    return [...state.roster.values()];
  },
  chat() {
    return [...state.chat];
  },
  errors() {
    return [...state.errors];
  },
  notices() {
    return [...state.notices];
  },
  bubbles() {
    return scene.bubbleLayout();
  },
  minimap() {
    return scene.minimapState();
  },
  tags() {
    return scene.tags();
  },
  tagRects() {
    return scene.tagRects();
  },
  send(message: Record<string, unknown>) {
    return connection.send(message);
  },
  dropConnection() {
    connection.drop();
  },
  /** Frames received so far by kind: text (JSON), binary (actor deltas), snapshots, refused. */
  wireStats() {
    return { ...connection.frames };
  },
  screenPoint(tx: number, ty: number) {
    return scene.screenPoint(tx, ty);
  },
};
