// Boots the client: the join form, the WebSocket, the Phaser scene and the DOM panels (chat,
// presence, notices, sign card, touch pad). Text from the world is always set with textContent:
// markup never runs.
import * as Phaser from "phaser";
import type { OfferedAction } from "../../src/world/actions/offer.ts";
import { isolate } from "./bidi.ts";
import { startGame } from "./game.ts";
import { Connection, type ConnState, type ServerMessage } from "./net.ts";
import { type Notice, type NoticeKind, noticeForError, noticeForOutcome } from "./notices.ts";
import { mountOffers } from "./offers.ts";
import {
  type Hearing,
  type MapPlace,
  naturalAction,
  type RadarDot,
  type WireEntity,
  type WireObject,
  type WireRoom,
  WorldScene,
} from "./scene.ts";
import { LOOKS } from "./textures.ts";

/** The offered action kinds, written in by the client build from the registry (PAGE_OFFERS in
 * src/world/actions/registry.ts), so the page never bundles the schema library. */
declare const PAGE_OFFERS: readonly OfferedAction[];

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
  tsMs?: number;
  payload: Record<string, unknown>;
}

interface Note {
  id: string;
  by: string;
  name: string;
  text: string;
  tsMs: number;
}

/** Touch first (a phone or tablet): no keys, no hover. */
const touchFirst = () => window.matchMedia("(pointer: coarse)").matches || window.innerWidth < 600;

const state = {
  status: "connecting" as ConnState,
  entityId: undefined as string | undefined,
  room: undefined as WireRoom | undefined,
  roster: new Map<string, RosterEntry>(),
  chat: [] as { from: string; fromName: string; channel: string; message: string }[],
  /** Chat lines already shown, by message id (history on join and live lines never double). */
  chatSeen: new Set<string>(),
  /** The name asked for on the form or in the address, and the one the world gave. */
  requestedName: "",
  name: "",
  place: undefined as MapPlace | undefined,
  errors: [] as { code: string; message: string }[],
  notices: [] as Notice[],
  lastResult: undefined as unknown,
  joined: false,
};

const scene = new WorldScene();
const game = startGame(scene);

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

/** An object's card (a sign's text, a board's notes, a private room's plaque): it stays while you
 * read, offers what the object affords, and closes when you walk away. */
let cardObject: WireObject | undefined;
let cardText = "";
function showCard(title: string, text: string, object?: WireObject): void {
  $("dialog-title").textContent = title;
  cardText = text;
  cardObject = object;
  renderCard();
  $("dialog").hidden = false;
}
function hideCard(): void {
  $("dialog").hidden = true;
  cardObject = undefined;
}
$("dialog-close").addEventListener("click", hideCard);

const prettyName = (o: WireObject) =>
  o.name.replace(/^(sign|board|door)[_ ]/, "").replace(/_/g, " ") || o.objectType.replace(/_/g, " ");

/** The card's body from the object as it is now (a board's notes come from its state, so a note
 * posted by anyone shows up while the card is open). */
function renderCard(): void {
  const o = cardObject ? (scene.object(cardObject.id) ?? cardObject) : undefined;
  const board = o?.objectType === "notice_board";
  const notes = board && Array.isArray(o.state.notes) ? (o.state.notes as Note[]) : [];
  $("dialog").dataset.kind = o?.objectType ?? "sign";
  $("dialog-text").textContent = board
    ? notes.length
      ? `${notes.length} note${notes.length === 1 ? "" : "s"}, newest first.`
      : "No notes yet. Be the first!"
    : cardText;
  const list = $("dialog-notes");
  list.hidden = !board || notes.length === 0;
  list.replaceChildren(
    ...[...notes].reverse().map((n) => {
      const li = document.createElement("li");
      const who = document.createElement("span");
      who.className = "note-by";
      who.textContent = `${isolate(n.name)}${n.by.startsWith("agt_") ? " · AI" : ""}`;
      // When it was posted, in the world's time (the note's own timestamp).
      const when = document.createElement("time");
      when.className = "note-when";
      when.dateTime = new Date(n.tsMs).toISOString();
      when.textContent = noteDate(n.tsMs);
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = n.text;
      li.append(who, when, text);
      li.dataset.id = n.id;
      return li;
    }),
  );
  $("dialog-post").hidden = !board;
  // Buttons for what else the object offers (a private room's "open" / "make private").
  const actions = $("dialog-actions");
  actions.replaceChildren(
    ...(o && !board
      ? o.affords
          .filter((a) => a.action !== "read")
          .map((a) => {
            const button = document.createElement("button");
            button.type = "button";
            button.textContent = a.label;
            button.dataset.action = a.action;
            button.addEventListener("click", () => useObject(o.id, a.action));
            return button;
          })
      : []),
  );
}

/** A note's date as a reader wants it: the time today, the day and time before that. */
function noteDate(tsMs: number): string {
  const at = new Date(tsMs);
  const time = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === new Date().toDateString()) return `today ${time}`;
  const sameYear = at.getFullYear() === new Date().getFullYear();
  const day = at.toLocaleDateString([], {
    day: "numeric",
    month: "short",
    ...(sameYear ? {} : { year: "numeric" }),
  });
  return `${day} ${time}`;
}

$("dialog-post").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("dialog-post-text");
  const text = input.value.trim();
  if (!text || !cardObject) return;
  useObject(cardObject.id, "post", { text });
});

function renderPresence(): void {
  const list = $("presence-list");
  list.replaceChildren(
    ...[...state.roster.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((r) => {
        const li = document.createElement("li");
        li.textContent = isolate(r.name);
        li.title = `${isolate(r.name)}${r.kind === "agent" ? " (AI agent)" : ""}${r.away ? " — away" : ""}`;
        li.dataset.kind = r.kind;
        li.dataset.id = r.id;
        if (r.away) li.dataset.away = "true";
        if (r.id === state.entityId) li.dataset.me = "true";
        return li;
      }),
  );
  $("presence-count").textContent = String(state.roster.size);
}

function addChatLine(from: string, fromName: string, channel: string, message: string, old = false): void {
  const li = document.createElement("li");
  if (old) li.dataset.history = "true";
  const chan = document.createElement("span");
  chan.className = "chan";
  chan.textContent = channel === "global" ? "room" : "near";
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = `${isolate(fromName)}:`;
  who.title = isolate(fromName);
  li.append(chan);
  // An AI agent says so in the log, as its tag does over its head.
  if (from.startsWith("agt_")) {
    li.dataset.kind = "agent";
    const ai = document.createElement("span");
    ai.className = "ai";
    ai.textContent = "AI";
    ai.title = "an AI agent";
    li.append(ai);
  }
  const text = document.createElement("span");
  text.className = "text";
  text.textContent = message;
  li.append(who, text);
  // Long lines are clamped to three lines; a click shows the rest, scrolled into view.
  if (message.length > 160) {
    li.dataset.long = "true";
    li.addEventListener("click", () => {
      li.toggleAttribute("data-expanded");
      revealLine(li);
    });
  }
  appendToLog(li);
}

function appendToLog(li: HTMLElement): void {
  const log = $("chat-log");
  log.append(li);
  while (log.children.length > 200) log.firstElementChild?.remove();
  log.scrollTop = log.scrollHeight;
}

/** A line across the chat log naming the room whose talk follows (after a portal). */
function addRoomSeparator(roomName: string): void {
  const li = document.createElement("li");
  li.className = "room-separator";
  li.dataset.separator = "true";
  li.textContent = roomName;
  appendToLog(li);
}

/** Scrolls the chat log so a line is in view: all of it when it fits, else from its top. */
function revealLine(li: HTMLElement): void {
  const log = $("chat-log");
  const top = li.offsetTop - log.offsetTop;
  const bottom = top + li.offsetHeight;
  if (bottom > log.scrollTop + log.clientHeight) log.scrollTop = Math.min(top, bottom - log.clientHeight);
  else if (top < log.scrollTop) log.scrollTop = top;
}

function onChatEvent(e: WireEvent, old: boolean): void {
  const p = e.payload;
  const key = typeof p.messageId === "string" ? p.messageId : `${state.room?.roomId}:${e.seq}`;
  if (state.chatSeen.has(key)) return;
  state.chatSeen.add(key);
  const from = String(p.fromEntityId);
  const fromName = String(p.fromName ?? from);
  const message = String(p.message);
  state.chat.push({ from, fromName, channel: String(p.channel), message });
  if (state.chat.length > 200) state.chat.shift();
  addChatLine(from, fromName, String(p.channel), message, old);
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
  if (moved) {
    notify(`You arrive in ${room.name}.`, "ok");
    addRoomSeparator(room.name);
  }
  for (const e of history) onChatEvent(e, true);
  await scene.whenReady;
  await scene.loadRoom(room, state.entityId!, entities, objects);
}

/** Someone's name as it is shown in a sentence. */
function nameOf(id: string): string {
  return isolate(state.roster.get(id)?.name ?? id);
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
      // A portal trip is an arrival from somewhere, not someone new.
      const who = `${isolate(String(p.name))}${kind === "agent" ? " (AI)" : ""}`;
      if (id !== state.entityId)
        notify(typeof p.fromRoom === "string" ? `${who} came from ${p.fromRoom}` : `${who} joined`, "social");
    } else if (e.type === "presence.leave") {
      const id = String(p.entityId);
      const name = nameOf(id);
      state.roster.delete(id);
      renderPresence();
      if (id !== state.entityId)
        notify(typeof p.toRoom === "string" ? `${name} went to ${p.toRoom}` : `${name} left`, "social");
    } else if (e.type === "object.state_changed") {
      scene.patchObject(
        String(p.objectId),
        p.patch as { op: string; path: string; value?: unknown }[],
        Number(p.version),
        p.affords as WireObject["affords"] | undefined,
      );
      if (cardObject?.id === p.objectId) renderCard();
    }
  }
}

/** An interaction the player asked for. While `walking`, the player heads for `dest` (a tile the
 * server chose within reach of the object) and the interaction is sent again on arrival, once. */
let pending:
  | {
      objectId: string;
      action: string;
      params?: Record<string, unknown>;
      walking: boolean;
      dest?: { tx: number; ty: number };
      tries: number;
    }
  | undefined;

function sendInteract(objectId: string, action: string, params?: Record<string, unknown>): void {
  connection.send({ type: "interact", targetId: objectId, action, ...(params ? { params } : {}) });
}

/** Uses an object (walking over first when it is out of reach: see onResult). */
function useObject(objectId: string, action: string, params?: Record<string, unknown>): void {
  pending = { objectId, action, ...(params ? { params } : {}), walking: false, tries: 0 };
  sendInteract(objectId, action, params);
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
  const action = pending?.action;
  pending = undefined;
  if (target && action === "read" && outcome.type === "ok") {
    const title =
      target.objectType === "notice_board"
        ? String(target.state.title ?? "Notice board")
        : target.objectType === "private_room"
          ? (scene.placeNamed(String(target.state.region))?.name ?? "Private room")
          : prettyName(target);
    showCard(title, outcome.message ?? "", target);
    return;
  }
  if (target?.objectType === "notice_board" && action === "post" && outcome.type === "ok")
    $<HTMLInputElement>("dialog-post-text").value = "";
  // A portal's own message names the room by id; the arrival notice names it properly.
  if (target?.objectType === "portal" && outcome.type === "ok") return;
  const n = noticeForOutcome(outcome);
  if (n) notify(n.text, n.kind);
}

function onMessage(message: ServerMessage): void {
  switch (message.type) {
    case "welcome": {
      const first = !state.joined;
      const asked = state.requestedName;
      state.entityId = message.entityId;
      state.name = String(message.name ?? asked);
      // A taken name gets a suffix: say so, so the player knows what others see.
      if (asked && state.name !== asked && !message.resumed)
        notify(`"${asked}" is taken here, so you are "${state.name}".`, "info");
      state.joined = true;
      document.body.dataset.phase = "playing";
      connection.rememberResume(message.resumeToken);
      if (connection.claim) {
        // Arrived from another gateway: this origin learns the person's name now.
        localStorage.setItem("ocw.name", state.name);
        dropClaimFromAddress();
      }
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
        notify(message.away ? `${isolate(r.name)} lost connection` : `${isolate(r.name)} is back`, "social");
      break;
    }
    case "events":
      onEvents(message.events);
      break;
    case "result":
      onResult(message);
      break;
    case "travel":
      if (!connection.travel(String(message.url)))
        notify("a portal sent you to an address this page cannot open", "error");
      break;
    case "error": {
      state.errors.push({ code: message.code, message: message.message });
      // A travel link that is wrong, used or expired: the ordinary join form, saying so.
      if (message.for === "join" && message.code === "claim_invalid") {
        dropClaimFromAddress();
        connection.giveUp(message.message);
        $<HTMLInputElement>("join-name").value = localStorage.getItem("ocw.name") ?? "";
        showJoin(message.message);
        break;
      }
      // A join refused for good (a join code, a name it may not take): back to the join form.
      if (
        message.for === "join" &&
        (message.code === "forbidden" || message.code === "conflict" || message.code === "bad_request")
      ) {
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
    connection.send({ type: "act", action: { kind: "moveTo", dest: { tx: tx, ty: ty } } });
  },
  interact(objectId, action) {
    useObject(objectId, action);
  },
  talkTo(actorId) {
    talkTo(actorId);
  },
  moveIntent(dx, dy) {
    if (dx || dy) {
      pending = undefined;
      hideHint();
    }
    connection.send({ type: "move_intent", dx, dy });
  },
  typing() {
    // A text field takes the keys; the channel picker does not (WASD walks after picking one).
    const el = document.activeElement;
    return el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
  },
  worldPointer() {
    releaseKeys();
  },
  place(place) {
    state.place = place;
    $("place-name").textContent = place ? place.name : "";
    if (!place) return;
    const banner = $("place-banner");
    const isPrivate = scene.privatePlaces().some((p) => p.id === place.id);
    banner.textContent = isPrivate ? `${place.name} · private` : place.name;
    banner.hidden = false;
    banner.classList.remove("fading");
    window.clearTimeout(bannerTimer);
    bannerTimer = window.setTimeout(() => banner.classList.add("fading"), 2200);
  },
  hover(info) {
    const tip = $("tooltip");
    if (!info) {
      tip.hidden = true;
      return;
    }
    tip.textContent = info.label;
    tip.hidden = false;
    tip.style.left = `${Math.min(info.x + 14, window.innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${Math.min(info.y + 18, window.innerHeight - tip.offsetHeight - 8)}px`;
  },
});
let bannerTimer: number | undefined;
$("place-banner").addEventListener("transitionend", () => {
  if ($("place-banner").classList.contains("fading")) $("place-banner").hidden = true;
});

/** Who would hear a line on the chosen channel, in words (and drawn on the map by the scene). */
function hearingText(h: Hearing | undefined, channel: string): string {
  if (!h) return "";
  const names = h.ids.map((id) => nameOf(id));
  const list =
    names.length > 4 ? `${names.slice(0, 4).join(", ")} and ${names.length - 4} more` : names.join(", ");
  if (channel === "global") {
    if (h.zone)
      return `Only those in the ${h.zone.name} hear you${names.length ? `: ${list}` : " — nobody else is here"}.`;
    const others = Math.max(0, state.roster.size - 1);
    return `Everyone in the ${state.room?.name ?? "room"} hears you (${others} other${others === 1 ? "" : "s"}).`;
  }
  if (names.length === 0)
    return h.zone
      ? `Nobody else is in the ${h.zone.name} to hear you.`
      : "Nobody is near enough to hear you. Walk closer, or switch to room.";
  return `Heard by ${list}${h.zone ? ` (only those in the ${h.zone.name})` : ""}.`;
}

function updateHearing(): Hearing | undefined {
  const typing = document.activeElement === $("chat-input") && state.joined;
  const channel = $<HTMLSelectElement>("chat-channel").value as "proximity" | "global";
  const hearing = scene.showHearing(typing ? channel : undefined);
  const line = $("chat-hearers");
  line.hidden = !typing;
  if (typing) {
    line.textContent = hearingText(hearing, channel);
    line.dataset.none = String(channel === "proximity" && (hearing?.ids.length ?? 0) === 0);
  }
  return hearing;
}

// Send a pending interaction again once the player stands on the tile the server chose; close a
// sign's card once its reader walked away from it.
game.events.on("step", () => {
  if (!state.entityId) return;
  updateHearing();
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
    // A click means the object's natural action as it is on arrival (a door someone opened since);
    // a deliberate action (a note to post) is sent as asked.
    const action = pending.params || !target ? pending.action : (naturalAction(target) ?? pending.action);
    pending.action = action;
    sendInteract(pending.objectId, action, pending.params);
  }
});

$("chat-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $<HTMLInputElement>("chat-input");
  const message = input.value.trim();
  if (!message) return;
  const channel = $<HTMLSelectElement>("chat-channel").value;
  const hearing = updateHearing();
  if (connection.send({ type: "chat_send", channel, message })) {
    input.value = "";
    releaseKeys(); // WASD walks again right away
    if (channel === "proximity" && hearing && hearing.ids.length === 0)
      notify("Nobody was near enough to hear that. Walk closer, or say it to the room.", "warn");
  } else notify("Not connected — your message was kept.", "warn");
});
// The actions the registry offers people (src/world/actions/<kind>.ts: `offer`; the client build
// writes the list in as PAGE_OFFERS): a gesture goes as an `act` message and comes back as a chat
// line over the head and in the log.
const offers = mountOffers($("chat-form"), PAGE_OFFERS, {
  send: (action) => connection.send({ type: "act", action }),
  notSent: (label) => notify(`Not connected — nothing was sent (${label.toLowerCase()}).`, "warn"),
  releaseKeys,
});
// Picking a channel gives the keys back to the world, as sending a line does.
$("chat-channel").addEventListener("change", () => releaseKeys());
// The chat folds away (it covers the map on a small screen) and unfolds again; remembered.
/** "Talk to" someone clicked on the map: walk up to them (a walk to where someone stands ends on
 * the free tile beside them: the world's rule) and start a line addressed to them by name, on the
 * nearby channel, in the chat box (focused: type and press Enter). */
function talkTo(actorId: string): void {
  const other = scene.snapshot().find((e) => e.id === actorId);
  if (!other) return;
  pending = undefined;
  // Up beside them, never onto their tile (the world picks a free one: approach).
  connection.send({ type: "approach", targetId: actorId });
  if ($("chat").hasAttribute("data-folded")) setChatFolded(false);
  $<HTMLSelectElement>("chat-channel").value = "proximity";
  const input = $<HTMLInputElement>("chat-input");
  const address = `${other.name}, `;
  if (!input.value.startsWith(address)) input.value = address;
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
  updateHearing();
}

function setChatFolded(folded: boolean): void {
  $("chat").toggleAttribute("data-folded", folded);
  const toggle = $("chat-toggle");
  toggle.setAttribute("aria-expanded", String(!folded));
  toggle.textContent = folded ? "▸ chat" : "▾ chat";
  toggle.title = folded ? "Show the chat" : "Fold the chat";
  localStorage.setItem("ocw.chatFolded", folded ? "1" : "0");
}
$("chat-toggle").addEventListener("click", () => {
  setChatFolded(!$("chat").hasAttribute("data-folded"));
  releaseKeys();
});
setChatFolded(localStorage.getItem("ocw.chatFolded") === "1");
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") {
    hideCard();
    offers.closeMenus();
    releaseKeys();
  } else if (document.activeElement === document.body && state.joined && offers.pressKey(event.key)) {
    event.preventDefault();
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
// The notices sit below the minimap wherever the minimap is; folded, it is remembered.
window.addEventListener("ocw:minimap", (event) => {
  const m = (event as CustomEvent<{ x: number; y: number; width: number; height: number; shown: boolean }>)
    .detail;
  document.documentElement.style.setProperty("--minimap-bottom", `${m.y + m.height + 8}px`);
  document.documentElement.style.setProperty("--minimap-width", `${m.width}px`);
  $("minimap-toggle").setAttribute("aria-pressed", String(m.shown));
  localStorage.setItem("ocw.minimap", m.shown ? "1" : "0");
});
// A phone starts without the minimap (it covered a good part of the room); the button brings it.
scene.showMinimap((localStorage.getItem("ocw.minimap") ?? (window.innerWidth < 600 ? "0" : "1")) === "1");
$("minimap-toggle").addEventListener("click", () => {
  scene.showMinimap($("minimap-toggle").getAttribute("aria-pressed") !== "true");
  releaseKeys();
});

// ---- hints and the touch pad -----------------------------------------------------------------

function showHint(): void {
  $("hint-text").textContent = touchFirst()
    ? "Use the pad or tap the map to walk. Tap signs, doors, seats and portals. Chat below."
    : "Walk with WASD or click the map. Click signs, doors, seats and portals, or someone to talk to. Enter to chat, Esc to walk again.";
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

/** The travel link was answered (let in, or refused; the connection sends it no more): drop it from
 * the address, so a reload resumes by this gateway's own token instead. */
function dropClaimFromAddress(): void {
  const url = new URL(location.href);
  url.searchParams.delete("claim");
  history.replaceState(history.state, "", url.href);
}

function join(name: string, code?: string, look?: number, remember = true): void {
  state.requestedName = name;
  if (remember) localStorage.setItem("ocw.name", name);
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
if (touchFirst())
  $("join-text").textContent =
    "A world shared by people and AI agents. Walk with the pad or by tapping the map; tap signs, doors, seats and portals; chat with whoever is near.";
// A tab closed or reloaded: say so to the server, which lets the character go within seconds instead
// of showing it "away" for the whole grace period (a reload resumes it before then, or brings it back
// where it left after then: the tab keeps its resume token, sent with the join form's name).
window.addEventListener("pagehide", (event) => {
  if (!event.persisted) connection.closePage();
});
// On a phone the presence list starts folded (its summary still shows how many are here).
if (window.innerWidth < 600) $("presence").removeAttribute("open");
// On a phone the presence list sits just above the chat's header, wherever that is now (the chat
// grows with its log and the "who hears you" line; it covered the header at a fixed height).
function placeAboveChat(): void {
  const top = Math.min($("chat").getBoundingClientRect().top, $("chat-toggle").getBoundingClientRect().top);
  document.documentElement.style.setProperty("--chat-top", `${Math.ceil(window.innerHeight - top + 6)}px`);
}
new ResizeObserver(placeAboveChat).observe($("chat"));
window.addEventListener("resize", placeAboveChat);
const params = new URLSearchParams(location.search);
const presetName = params.get("name") ?? undefined;
const presetLook = params.has("look") ? Number(params.get("look")) : undefined;
const claim = params.get("claim") ?? undefined;
if (claim) {
  // Arrived through a portal from another gateway: join as that person (the server names them).
  connection.claim = claim;
  join(localStorage.getItem("ocw.name") || "Traveller", undefined, undefined, false);
} else if (presetName)
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
  /** "webgl" or "canvas": what Phaser.AUTO chose in this browser. */
  get renderer() {
    return game.renderer.type === Phaser.WEBGL ? "webgl" : "canvas";
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
  hover() {
    return scene.hoverState();
  },
  hearing() {
    return scene.hearingState();
  },
  places() {
    return scene.placesState();
  },
  name() {
    return state.name;
  },
  tags() {
    return scene.tags();
  },
  tagRects() {
    return scene.tagRects();
  },
  /** Actions sent and not answered yet (their txIds), and how many were sent again after a resume. */
  unanswered() {
    return { txIds: connection.unansweredTxIds(), resent: connection.resent };
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
