// Boots the live page: the Phaser scene, the WebSocket, and the panels around them (join form, chat,
// presence, notices, object card, hint, touch pad), each in its own module; this file only wires
// them. Text from the world is always set with textContent: markup never runs.
import type { OfferedAction } from "../../src/world/actions/offer.ts";
import { mountChatPanel } from "./chat-panel.ts";
import { mountDayClock } from "./day-clock.ts";
import { hideHint, mountHint } from "./first-hint.ts";
import { startGame } from "./game.ts";
import { updateHearing } from "./hearing-line.ts";
import { joinFromAddress, mountJoinForm } from "./join-form.ts";
import { mountMapButtons } from "./map-buttons.ts";
import { Connection } from "./net.ts";
import { notify, setStatus } from "./notice-list.ts";
import { mountObjectCard } from "./object-card.ts";
import { mountOffers } from "./offers.ts";
import { keysToWorld, mountPageKeys } from "./page-keys.ts";
import { $, state } from "./page-state.ts";
import { mountPlaceBanner, showPlace } from "./place-banner.ts";
import { mountPresenceLayout } from "./presence-list.ts";
import { WorldScene } from "./scene.ts";
import { serverMessages } from "./server-messages.ts";
import { openTestWindow } from "./test-window.ts";
import { showTooltip } from "./tooltip.ts";
import { mountTouchPad } from "./touch-pad.ts";
import { mountTourPanel } from "./tour-panel.ts";
import { mountObjectUse } from "./use-objects.ts";

/** The offered action kinds, written in by the client build from the registry (PAGE_OFFERS in
 * src/world/actions/registry.ts), so the page never bundles the schema library. */
declare const PAGE_OFFERS: readonly OfferedAction[];

const scene = new WorldScene();
const game = startGame(scene);
const releaseKeys = keysToWorld(game);

// The card and the object use need each other: a card's button uses its object, a read opens a card.
const card = mountObjectCard(scene, (objectId, action, params) => uses.use(objectId, action, params));
const connection = new Connection({ onMessage: (message) => onMessage(message), onState: setStatus });
const uses = mountObjectUse(connection, scene, card);
const dayClock = mountDayClock(scene);
const tour = mountTourPanel((objectId) => uses.use(objectId, "start"));
const onMessage = serverMessages({ connection, scene, card, uses, dayClock, tour });

const chat = mountChatPanel({ connection, scene, releaseKeys, forgetPending: () => uses.forget() });

scene.setCallbacks({
  moveTo(tx, ty) {
    uses.forget();
    connection.send({ type: "act", action: { kind: "moveTo", dest: { tx: tx, ty: ty } } });
  },
  interact(objectId, action) {
    uses.use(objectId, action);
  },
  talkTo(actorId) {
    chat.talkTo(actorId);
  },
  moveIntent(dx, dy) {
    if (dx || dy) {
      uses.forget();
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
    showPlace(place, scene);
  },
  hover(info) {
    showTooltip(info);
  },
});
mountPlaceBanner();

// Send a pending interaction again once the player stands on the tile the server chose; close a
// sign's card once its reader walked away from it.
game.events.on("step", () => {
  if (!state.entityId) return;
  updateHearing(scene);
  const me = scene.snapshot().find((e) => e.id === state.entityId);
  if (!me || !state.room) return;
  const open = card.object;
  if (open && Math.max(Math.abs(me.tx - open.tx), Math.abs(me.ty - open.ty)) > 4) card.hide();
  uses.arrive(me, state.room.tileSize);
});

// The actions the registry offers people (src/world/actions/<kind>.ts: `offer`; the client build
// writes the list in as PAGE_OFFERS): a gesture goes as an `act` message and comes back as a chat
// line over the head and in the log.
const offers = mountOffers($("chat-form"), PAGE_OFFERS, {
  send: (action) => connection.send({ type: "act", action }),
  notSent: (label) => notify(`Not connected — nothing was sent (${label.toLowerCase()}).`, "warn"),
  releaseKeys,
});
mountPageKeys({ hideCard: () => card.hide(), offers, releaseKeys });
mountMapButtons(scene, releaseKeys);
mountHint();
mountTouchPad(scene, releaseKeys);
mountJoinForm(connection);
// A tab closed or reloaded: say so to the server, which lets the character go within seconds instead
// of showing it "away" for the whole grace period (a reload resumes it before then, or brings it back
// where it left after then: the tab keeps its resume token, sent with the join form's name).
window.addEventListener("pagehide", (event) => {
  if (!event.persisted) connection.closePage();
});
mountPresenceLayout();
joinFromAddress(connection);
openTestWindow(game, scene, connection, tour, dayClock);
