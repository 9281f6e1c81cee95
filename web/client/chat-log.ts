// The chat log: each line with its channel, its speaker (an AI agent says so) and, when long, a click
// to read the rest; a separator where the player changed rooms. History and live lines never double.
import { isolate } from "./bidi.ts";
import { $, state, type WireEvent } from "./page-state.ts";

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
export function addRoomSeparator(roomName: string): void {
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

/** A chat event into the log; a live one (not `old` history) also as a bubble, by `say`. */
export function onChatEvent(e: WireEvent, old: boolean, say: (from: string, message: string) => void): void {
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
  if (!old) say(from, message);
}
