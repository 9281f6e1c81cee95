// Boots the client: the join form, the WebSocket, the Phaser scene and the DOM panels (chat,
// presence, status). Text from the world is always set with textContent: markup never runs.
import * as Phaser from "phaser";
import { Connection, type ConnState, type ServerMessage } from "./net.ts";
import { naturalAction, type WireEntity, type WireObject, type WireRoom, WorldScene } from "./scene.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

interface RosterEntry {
  id: string;
  name: string;
  kind: "human" | "agent";
}

const state = {
  status: "connecting" as ConnState,
  entityId: undefined as string | undefined,
  room: undefined as WireRoom | undefined,
  roster: new Map<string, RosterEntry>(),
  chat: [] as { from: string; fromName: string; channel: string; message: string }[],
  errors: [] as { code: string; message: string }[],
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

let toastTimer: number | undefined;
function toast(text: string): void {
  const el = $("toast");
  el.textContent = text;
  el.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => {
    el.hidden = true;
  }, 3500);
}

function showDialog(text: string): void {
  $("dialog-text").textContent = text;
  $("dialog").hidden = false;
}
$("dialog-close").addEventListener("click", () => {
  $("dialog").hidden = true;
});

function renderPresence(): void {
  const list = $("presence-list");
  list.replaceChildren(
    ...[...state.roster.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => {
        const li = document.createElement("li");
        li.textContent = r.name;
        li.dataset.kind = r.kind;
        li.dataset.id = r.id;
        if (r.id === state.entityId) li.dataset.me = "true";
        return li;
      }),
  );
  $("presence-count").textContent = `(${state.roster.size})`;
}

function addChatLine(fromName: string, channel: string, message: string): void {
  const li = document.createElement("li");
  const chan = document.createElement("span");
  chan.className = "chan";
  chan.textContent = channel === "global" ? "room" : "near";
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = `${fromName}:`;
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = message;
  li.append(chan, who, text);
  const log = $("chat-log");
  log.append(li);
  while (log.children.length > 200) log.firstElementChild?.remove();
  log.scrollTop = log.scrollHeight;
}

// ---- server messages --------------------------------------------------------------------------

function setRoster(roster: RosterEntry[]): void {
  state.roster = new Map(roster.map((r) => [r.id, r]));
  renderPresence();
}

async function enterRoom(room: WireRoom, entities: WireEntity[], objects: WireObject[]): Promise<void> {
  state.room = room;
  $("room-name").textContent = room.name;
  await scene.whenReady;
  await scene.loadRoom(room, state.entityId!, entities, objects);
}

function onEvents(events: { type: string; payload: Record<string, unknown> }[]): void {
  for (const e of events) {
    const p = e.payload;
    if (e.type === "chat.message") {
      const from = String(p.fromEntityId);
      const fromName = String(p.fromName ?? from);
      const message = String(p.message);
      state.chat.push({ from, fromName, channel: String(p.channel), message });
      if (state.chat.length > 200) state.chat.shift();
      addChatLine(fromName, String(p.channel), message);
      scene.say(from, message);
    } else if (e.type === "presence.join") {
      state.roster.set(String(p.entityId), {
        id: String(p.entityId),
        name: String(p.name),
        kind: p.kind === "agent" ? "agent" : "human",
      });
      renderPresence();
    } else if (e.type === "presence.leave") {
      state.roster.delete(String(p.entityId));
      renderPresence();
    } else if (e.type === "object.state_changed") {
      scene.patchObject(
        String(p.objectId),
        p.patch as { op: string; path: string; value?: unknown }[],
        Number(p.version),
      );
    }
  }
}

/** An interaction the player asked for; `sent` is false while walking closer to retry it. */
let pending: { objectId: string; action: string; sent: boolean } | undefined;

function onResult(message: ServerMessage): void {
  state.lastResult = message;
  if (message.for !== "interact") return;
  const outcome = message.data?.outcome as { type: string; message?: string } | undefined;
  if (!outcome) return;
  if (outcome.type === "too_far" && pending) {
    const target = scene.object(pending.objectId);
    if (target) connection.send({ type: "click_to_move", destTx: target.tx, destTy: target.ty + 1 });
    pending.sent = false;
    toast("Walking closer…");
    return;
  }
  pending = undefined;
  if (outcome.type === "ok" && outcome.message) showDialog(outcome.message);
  else if (outcome.type !== "ok") toast(outcome.message ?? outcome.type.replace("_", " "));
}

function onMessage(message: ServerMessage): void {
  switch (message.type) {
    case "welcome":
      state.entityId = message.entityId;
      state.joined = true;
      connection.rememberResume(message.resumeToken);
      setStatus("online");
      $("join").hidden = true;
      setRoster(message.roster);
      void enterRoom(message.room, message.entities, message.objects).catch((e: Error) => toast(e.message));
      break;
    case "room":
      setRoster(message.roster);
      void enterRoom(message.room, message.entities, message.objects).catch((e: Error) => toast(e.message));
      break;
    case "delta":
      for (const e of message.add as WireEntity[]) scene.upsertActor(e);
      for (const u of message.update as (Partial<WireEntity> & { id: string })[]) scene.updateActor(u);
      for (const id of message.remove as string[]) scene.removeActor(id);
      break;
    case "events":
      onEvents(message.events);
      break;
    case "result":
      onResult(message);
      break;
    case "error":
      state.errors.push({ code: message.code, message: message.message });
      if (message.for === "join" && (message.code === "forbidden" || message.code === "conflict")) {
        connection.giveUp(message.message);
        showJoin(message.message, message.code === "forbidden");
      } else if (message.code === "collision_blocked") toast("You can't go there.");
      else if (message.code === "invalid_destination") toast("That is outside the map.");
      else if (message.code === "rate_limited") toast("Slow down a little.");
      else toast(message.message);
      break;
  }
}

const connection = new Connection({ onMessage, onState: setStatus });

scene.setCallbacks({
  moveTo(tx, ty) {
    pending = undefined;
    connection.send({ type: "click_to_move", destTx: tx, destTy: ty });
  },
  interact(objectId, action) {
    pending = { objectId, action, sent: true };
    connection.send({ type: "interact", targetId: objectId, action });
  },
  moveIntent(dx, dy) {
    if (dx || dy) pending = undefined;
    connection.send({ type: "move_intent", dx, dy });
  },
  typing() {
    const el = document.activeElement;
    return (
      el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    );
  },
});

// Retry a pending interaction once the player stands next to its object.
game.events.on("step", () => {
  if (!pending || pending.sent || !state.entityId) return;
  const me = scene.snapshot().find((e) => e.id === state.entityId);
  const target = scene.object(pending.objectId);
  if (me && target && Math.max(Math.abs(me.tx - target.tx), Math.abs(me.ty - target.ty)) <= 1) {
    pending.sent = true;
    connection.send({
      type: "interact",
      targetId: target.id,
      action: naturalAction(target) ?? pending.action,
    });
  }
});

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("chat-input");
  const message = input.value.trim();
  if (!message) return;
  if (connection.send({ type: "chat_send", channel: $<HTMLSelectElement>("chat-channel").value, message }))
    input.value = "";
  else toast("Not connected — your message was kept.");
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    $("dialog").hidden = true;
    (document.activeElement as HTMLElement | null)?.blur();
  } else if (event.key === "Enter" && document.activeElement === document.body) {
    $("chat-input").focus();
  }
});
$("debug-toggle").addEventListener("click", () => {
  $("debug-toggle").setAttribute("aria-pressed", String(scene.toggleDebug()));
});

// ---- joining ----------------------------------------------------------------------------------

function showJoin(error = "", needCode = false): void {
  $("join").hidden = false;
  $("join-error").textContent = error;
  if (needCode) $("join-code").hidden = false;
  $("join-name").focus();
}

function join(name: string, code?: string): void {
  localStorage.setItem("ocw.name", name);
  $("join").hidden = true;
  setStatus("connecting");
  connection.start(name, code);
}

$("join").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $<HTMLInputElement>("join-name").value.trim();
  const code = $<HTMLInputElement>("join-code").value.trim();
  if (name) join(name, code || undefined);
});

const params = new URLSearchParams(location.search);
const presetName = params.get("name") ?? undefined;
if (presetName) join(presetName.slice(0, 32), params.get("code") ?? undefined);
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
  roster() {
    return [...state.roster.values()];
  },
  chat() {
    return [...state.chat];
  },
  errors() {
    return [...state.errors];
  },
  send(message: Record<string, unknown>) {
    return connection.send(message);
  },
  dropConnection() {
    connection.drop();
  },
  screenPoint(tx: number, ty: number) {
    return scene.screenPoint(tx, ty);
  },
};
