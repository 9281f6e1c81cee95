// What the server says, into the page: the welcome and each room entered, actors' deltas and the
// radar for the scene, presence and chat for the panels, results and refusals as notices.
import { isolate } from "./bidi.ts";
import { addRoomSeparator, onChatEvent } from "./chat-log.ts";
import { showHint } from "./first-hint.ts";
import { dropClaimFromAddress, showJoin } from "./join-form.ts";
import type { Connection, ServerMessage } from "./net.ts";
import { notify, setStatus } from "./notice-list.ts";
import { noticeForError } from "./notices.ts";
import type { ObjectCard } from "./object-card.ts";
import { $, nameOf, state, type WireEvent } from "./page-state.ts";
import { renderPresence, setRoster } from "./presence-list.ts";
import type { RadarDot, WireEntity, WireObject, WireRoom, WorldScene } from "./scene.ts";
import type { TourPanel } from "./tour-panel.ts";
import type { ObjectUse } from "./use-objects.ts";
import { heardWorldTime, setWorldTime } from "./world-clock.ts";

export function serverMessages(page: {
  connection: Connection;
  scene: WorldScene;
  card: ObjectCard;
  uses: ObjectUse;
  dayClock: { update(): void };
  tour: TourPanel;
}): (message: ServerMessage) => void {
  const { connection, scene, card, uses, dayClock, tour } = page;
  const say = (from: string, message: string) => scene.say(from, message);

  async function enterRoom(
    room: WireRoom,
    entities: WireEntity[],
    objects: WireObject[],
    history: WireEvent[] = [],
  ): Promise<void> {
    const moved = state.room !== undefined && state.room.roomId !== room.roomId;
    state.room = room;
    $("room-name").textContent = room.name;
    card.hide();
    if (moved) {
      notify(`You arrive in ${room.name}.`, "ok");
      addRoomSeparator(room.name);
    }
    for (const e of history) onChatEvent(e, true, say);
    await scene.whenReady;
    await scene.loadRoom(room, state.entityId!, entities, objects);
  }

  function onEvents(events: WireEvent[]): void {
    for (const e of events) {
      if (e.tsMs !== undefined) heardWorldTime(e.tsMs);
      const p = e.payload;
      if (e.type === "chat.message") {
        onChatEvent(e, false, say);
        tour.heard(e);
      } else if (e.type === "presence.join") {
        const id = String(p.entityId);
        const kind = p.kind === "agent" ? "agent" : "human";
        state.roster.set(id, { id, name: String(p.name), kind });
        renderPresence();
        // A portal trip is an arrival from somewhere, not someone new.
        const who = `${isolate(String(p.name))}${kind === "agent" ? " (AI)" : ""}`;
        if (id !== state.entityId)
          notify(
            typeof p.fromRoom === "string" ? `${who} came from ${p.fromRoom}` : `${who} joined`,
            "social",
          );
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
        if (card.object?.id === p.objectId) card.render();
      }
    }
  }

  return function onMessage(message: ServerMessage): void {
    switch (message.type) {
      case "welcome": {
        setWorldTime(message.serverTsMs);
        const first = !state.joined;
        const asked = state.requestedName;
        state.entityId = message.entityId;
        state.name = String(message.name ?? asked);
        // A taken name gets a suffix: say so, so the player knows what others see.
        if (asked && state.name !== asked && !message.resumed)
          notify(`"${asked}" is taken here, so you are "${state.name}".`, "info");
        state.joined = true;
        document.body.dataset.phase = "playing";
        dayClock.update();
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
        for (const e of (message.add ?? []) as WireEntity[]) {
          scene.upsertActor(e);
          rosterAway(e.id, e.away === true);
        }
        for (const u of (message.update ?? []) as (Partial<WireEntity> & { id: string })[]) {
          scene.updateActor(u);
          if (u.away !== undefined) rosterAway(u.id, u.away);
        }
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
          notify(
            message.away ? `${isolate(r.name)} lost connection` : `${isolate(r.name)} is back`,
            "social",
          );
        break;
      }
      case "events":
        onEvents(message.events);
        break;
      case "progress":
        tour.show(message.items);
        break;
      case "creatures":
        for (const o of message.objects) scene.upsertObject(o);
        break;
      case "result":
        uses.onResult(message);
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
        if (message.for === "approach" || message.for === "interact") uses.forget();
        const n = noticeForError(message.code, message.message, message.opensAt);
        notify(n.text, n.kind);
        break;
      }
    }
  };
}

/** An agent quiet for a while is away (the server's quiet-agents rule), seen when it is near: the
 * presence list says so too. A person's away comes in its own "presence" message. */
function rosterAway(id: string, away: boolean): void {
  const r = state.roster.get(id);
  if (!r || r.away === away || (r.away === undefined && !away)) return;
  r.away = away;
  renderPresence();
}
