// Say something: nearby (chatRadiusTiles) or to the whole room; the place decides who hears
// (places.ts: in a private room only those inside, on any channel). Recorded in the room's chat log,
// as an event to those who heard it, and in the agents' memories.

import * as z from "zod";
import { type Actor, compareIds } from "../actor.ts";
import { fail } from "../core.ts";
import { placeAt, withinHearing } from "../places.ts";
import type { Audience, ChatChannel, ChatMessageRecord } from "../types.ts";
import { type ActionWire, bad, defineAction } from "./action.ts";
import { chatText, MessageIdField } from "./field-shapes.ts";

declare module "../types.ts" {
  interface ActionInputs {
    chat: { channel: ChatChannel; message: string };
  }
  interface ActionValues {
    chat: { chatMessageId: string };
  }
}

/** Who hears it (named ChatChannel in the documents). */
export const ChatChannelField = z.enum(["proximity", "global"]);

export const chatWire = {
  fields: { channel: ChatChannelField, message: chatText() },
  answer: { chatMessageId: MessageIdField },
} as const satisfies ActionWire<"chat">;

export const chat = defineAction({
  kind: "chat",
  rateClass: "chatSend",
  freeText: true,
  wire: chatWire,
  check(i) {
    if (i.channel !== "proximity" && i.channel !== "global")
      return bad('channel must be "proximity" or "global"');
    return typeof i.message === "string" ? undefined : bad("message must be a string");
  },
  apply(w, { entityId, channel, message }) {
    const actor = w.actors.get(entityId);
    if (!actor) return fail("agent_not_in_room", `${entityId} is not in the world`);
    if (message.trim().length === 0) return fail("bad_request", "message is empty");
    const max = w.definition.chatMaxLength;
    if (message.length > max) {
      return fail("bad_request", `message is longer than ${max} characters`, { length: message.length, max });
    }
    const room = w.rooms.get(actor.roomId)!;
    const privatePlaces = room.privatePlaces();
    const hears = (other: Actor) => withinHearing(privatePlaces, actor, other);
    const zone = privatePlaces.length > 0 ? placeAt(privatePlaces, actor.tx, actor.ty)?.id : undefined;
    let heardBy: readonly string[];
    if (channel === "global" && privatePlaces.length === 0) heardBy = room.presentIds();
    else if (channel === "global") heardBy = room.actors.filter(hears).map((a) => a.id);
    else {
      const near: string[] = [];
      const radius = w.definition.chatRadiusTiles * room.tileSize;
      room.grid.forEachWithin(actor.x, actor.y, radius, (other) => {
        if (hears(other)) near.push(other.id);
      });
      heardBy = near.sort(compareIds);
    }
    const id = `msg_${w.rng.idChars(16)}`;
    const record: ChatMessageRecord = {
      id,
      roomId: room.def.roomId,
      channel,
      fromEntityId: actor.id,
      fromName: actor.name,
      message,
      tsMs: w.serverTsMs,
      heardBy,
      ...(zone !== undefined ? { zone } : {}),
    };
    room.chat.add(record);
    w.signal(actor, "chat");
    const audience: Audience =
      channel === "global" && heardBy === room.presentIds()
        ? { kind: "room" }
        : { kind: "entities", ids: [...heardBy] };
    w.emit(
      room,
      "chat.message",
      { messageId: id, fromEntityId: actor.id, channel, message, tsMs: w.serverTsMs },
      audience,
    );
    w.remember(actor.id, "said", `said: ${message}`);
    for (const hearer of heardBy) {
      if (hearer !== actor.id) w.remember(hearer, "heard", `${actor.name} said: ${message}`);
    }
    return { ok: true, value: { kind: "chat", chatMessageId: id } };
  },
});
