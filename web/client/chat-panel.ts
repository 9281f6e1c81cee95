// The chat box: a line sent on the chosen channel (warned when nobody was near enough to hear it),
// "talk to" someone clicked on the map, and the fold that keeps the chat off a small screen's map.
import { updateHearing } from "./hearing-line.ts";
import type { Connection } from "./net.ts";
import { notify } from "./notice-list.ts";
import { $ } from "./page-state.ts";
import type { WorldScene } from "./scene.ts";

export interface ChatPanel {
  /** Walk up to someone and start a line addressed to them. */
  talkTo(actorId: string): void;
}

export function mountChatPanel(page: {
  connection: Connection;
  scene: WorldScene;
  releaseKeys(): void;
  /** Nothing is pending any more (a walk to use an object is dropped). */
  forgetPending(): void;
}): ChatPanel {
  const { connection, scene, releaseKeys } = page;
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>("chat-input");
    const message = input.value.trim();
    if (!message) return;
    const channel = $<HTMLSelectElement>("chat-channel").value;
    const hearing = updateHearing(scene);
    if (connection.send({ type: "chat_send", channel, message })) {
      input.value = "";
      releaseKeys(); // WASD walks again right away
      if (channel === "proximity" && hearing && hearing.ids.length === 0)
        notify("Nobody was near enough to hear that. Walk closer, or say it to the room.", "warn");
    } else notify("Not connected — your message was kept.", "warn");
  });
  // Picking a channel gives the keys back to the world, as sending a line does.
  $("chat-channel").addEventListener("change", () => releaseKeys());

  /** "Talk to" someone clicked on the map: walk up to them (a walk to where someone stands ends on
   * the free tile beside them: the world's rule) and start a line addressed to them by name, on the
   * nearby channel, in the chat box (focused: type and press Enter). */
  function talkTo(actorId: string): void {
    const other = scene.snapshot().find((e) => e.id === actorId);
    if (!other) return;
    page.forgetPending();
    // Up beside them, never onto their tile (the world picks a free one: approach).
    connection.send({ type: "approach", targetId: actorId });
    if ($("chat").hasAttribute("data-folded")) setChatFolded(false);
    $<HTMLSelectElement>("chat-channel").value = "proximity";
    const input = $<HTMLInputElement>("chat-input");
    const address = `${other.name}, `;
    if (!input.value.startsWith(address)) input.value = address;
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    updateHearing(scene);
  }

  // The chat folds away (it covers the map on a small screen) and unfolds again; remembered.
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

  return { talkTo };
}
