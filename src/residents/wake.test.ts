import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../aic/reads.ts";
import { replyChannel, saysName, type WakeSubject, wakeHappenings } from "./wake.ts";

const guide: WakeSubject = {
  entityId: "agt_guide",
  name: "Guide",
  wake: { nearby: true, name: true, approach: false },
};
let seq = 0;
function chat(
  from: string,
  message: string,
  opts: { channel?: string; heardBy?: string[] } = {},
): WorldEvent {
  seq += 1;
  return {
    seq,
    type: "chat.message",
    roomId: "lobby",
    tsMs: 0,
    tick: 7,
    payload: {
      messageId: `msg_${seq}`,
      fromEntityId: from,
      channel: opts.channel ?? "proximity",
      message,
      tsMs: 0,
    },
    audience: opts.heardBy ? { kind: "entities", ids: opts.heardBy } : { kind: "room" },
  };
}
const enter = (subjectId: string, otherId: string): WorldEvent => ({
  seq: ++seq,
  type: "proximity.enter",
  roomId: "lobby",
  tsMs: 0,
  tick: 9,
  payload: { subjectId, otherId, distance: 2 },
  audience: { kind: "entities", ids: [subjectId] },
});
const none = new Set<string>();

describe("who the world wakes", () => {
  it("speech it hears nearby wakes it, with who spoke, what and when", () => {
    const found = wakeHappenings(
      guide,
      "lobby",
      [chat("hum_ann", "hello", { heardBy: ["hum_ann", "agt_guide"] })],
      none,
    );
    expect(found).toEqual([
      {
        reason: "spoken_nearby",
        tick: 7,
        roomId: "lobby",
        fromEntityId: "hum_ann",
        message: "hello",
        heardNearby: true,
      },
    ]);
  });

  it("the answer goes where the one who spoke hears it: nearby, or the whole room when called from afar", () => {
    const near = wakeHappenings(guide, "lobby", [chat("hum_ann", "hi", { heardBy: ["agt_guide"] })], none);
    const far = wakeHappenings(guide, "lobby", [chat("hum_bob", "Guide?", { heardBy: ["hum_bob"] })], none);
    const called = wakeHappenings(guide, "lobby", [chat("hum_cy", "Guide!", { channel: "global" })], none);
    const came = wakeHappenings(guide, "lobby", [enter("agt_guide", "hum_dee")], none);
    expect(replyChannel(near)).toBe("proximity");
    expect(replyChannel(came)).toBe("proximity");
    expect(replyChannel(far)).toBe("global");
    expect(replyChannel(called)).toBe("global");
    // One far caller among near ones: the room hears it, the near ones too.
    expect(replyChannel([...near, ...far])).toBe("global");
  });

  it("speech it does not hear wakes it only when it says its name", () => {
    const far = chat("hum_bob", "hello there", { heardBy: ["hum_bob"] });
    const named = chat("hum_bob", "where is the guide?", { heardBy: ["hum_bob"] });
    expect(wakeHappenings(guide, "lobby", [far, named], none).map((h) => [h.reason, h.message])).toEqual([
      ["name_said", "where is the guide?"],
    ]);
  });

  it("global chat in its room wakes it only by name; other rooms never", () => {
    const global = chat("hum_ann", "hi all", { channel: "global" });
    const elsewhere = { ...chat("hum_ann", "Guide!"), roomId: "garden" };
    expect(wakeHappenings(guide, "lobby", [global, elsewhere], none)).toEqual([]);
    expect(
      wakeHappenings(guide, "lobby", [chat("hum_ann", "Guide, hi", { channel: "global" })], none),
    ).toHaveLength(1);
  });

  it("its own speech and other residents' never wake it", () => {
    const own = chat("agt_guide", "Welcome!", { heardBy: ["agt_guide", "hum_ann"] });
    const peer = chat("agt_sage", "Guide, hello", { heardBy: ["agt_sage", "agt_guide"] });
    expect(wakeHappenings(guide, "lobby", [own, peer], new Set(["agt_guide", "agt_sage"]))).toEqual([]);
  });

  it("a resident that talks to residents: another coming near (the first id opens), or speaking near it", () => {
    const talker = { ...guide, wake: { ...guide.wake, residents: true } };
    const residents = new Set(["agt_guide", "agt_sage", "agt_ann"]);
    const peer = chat("agt_sage", "Fine day!", { heardBy: ["agt_sage", "agt_guide"] });
    const far = chat("agt_sage", "Guide, hello", { channel: "global" });
    const events = [enter("agt_guide", "agt_sage"), enter("agt_guide", "agt_ann"), peer, far];
    expect(wakeHappenings(talker, "lobby", events, residents)).toEqual([
      { reason: "resident_near", tick: 9, roomId: "lobby", fromEntityId: "agt_sage" },
      {
        reason: "resident_spoke",
        tick: 7,
        roomId: "lobby",
        fromEntityId: "agt_sage",
        message: "Fine day!",
        heardNearby: true,
      },
    ]);
    // Off by default: residents never wake it.
    expect(wakeHappenings(guide, "lobby", events, residents)).toEqual([]);
  });

  it("rules switch each way off; an approach wakes only when configured, and only for people", () => {
    const deaf = { ...guide, wake: { nearby: false, name: false, approach: false } };
    expect(
      wakeHappenings(deaf, "lobby", [chat("hum_ann", "Guide hello", { heardBy: ["agt_guide"] })], none),
    ).toEqual([]);
    const events = [
      enter("agt_guide", "hum_ann"),
      enter("agt_guide", "agt_bot"),
      enter("hum_ann", "agt_guide"),
    ];
    expect(wakeHappenings(guide, "lobby", events, none)).toEqual([]);
    const greeter = { ...guide, wake: { ...guide.wake, approach: true } };
    expect(wakeHappenings(greeter, "lobby", events, none)).toEqual([
      { reason: "approached", tick: 9, roomId: "lobby", fromEntityId: "hum_ann" },
    ]);
  });

  it("an object that waits for its move wakes it once a tick, on another's change only", () => {
    const changed = (actorId: string, field: string): WorldEvent => ({
      seq: ++seq,
      type: "object.state_changed",
      roomId: "lobby",
      tsMs: 0,
      tick: 11,
      payload: {
        objectId: "obj_table",
        objectType: "game_table",
        patch: [{ op: "replace", path: `/${field}` }],
      },
      audience: { kind: "room" },
      actorId,
    });
    const awaiting = (awaits?: string) => ({
      objectView: () => ({
        objectType: "game_table",
        state: {},
        version: 3,
        affords: [],
        ...(awaits ? { awaits } : {}),
      }),
    });
    const move = [changed("hum_ann", "cells"), changed("hum_ann", "turn"), changed("hum_ann", "moves")];
    expect(wakeHappenings(guide, "lobby", move, none, awaiting("agt_guide"))).toEqual([
      { reason: "your_move", tick: 11, roomId: "lobby", fromEntityId: "hum_ann", objectId: "obj_table" },
    ]);
    expect(wakeHappenings(guide, "lobby", move, none, awaiting("hum_ann"))).toEqual([]);
    expect(wakeHappenings(guide, "lobby", move, none, awaiting())).toEqual([]);
    // Its own change (a rematch it started) is no news to it.
    expect(
      wakeHappenings(guide, "lobby", [changed("agt_guide", "cells")], none, awaiting("agt_guide")),
    ).toEqual([]);
  });

  it("nothing wakes a resident that is not in the world", () => {
    expect(wakeHappenings(guide, undefined, [chat("hum_ann", "Guide")], none)).toEqual([]);
  });

  it("a name is a word of its own, in any case and script", () => {
    expect(saysName("hi GUIDE!", "Guide")).toBe(true);
    expect(saysName("guided tour", "Guide")).toBe(false);
    expect(saysName("Élodie?", "élodie")).toBe(true);
    expect(saysName("ask Dr. Who", "Dr. Who")).toBe(true);
    expect(saysName("anything", "  ")).toBe(false);
  });
});
