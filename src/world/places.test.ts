// The town's object types (notice board, seat, private room), stepping onto a portal, and the place
// rules they share with the web client (places.ts): each as the world applies it, through inputs,
// and each surviving a snapshot round trip exactly.
import { describe, expect, it } from "vitest";
import { OPERATOR_ENTITY_ID } from "./ids.ts";
import { NOTE_LIMITS, type Note } from "./objects/notice-board.ts";
import { hearingZoneAt, placeAt, withinHearing } from "./places.ts";
import { fixtureWorld, openRoom } from "./testing/fixtures.ts";
import { join, one, run, walkTo } from "./testing/helpers.ts";
import type { Input, InputResult, WorldDefinition, WorldSnapshot } from "./types.ts";
import { World } from "./world.ts";
import { SnapshotMismatchError } from "./world-errors.ts";

/** Room "t" 24x14: a board, two seats, a private room (the west 8x6 "booth", with its sign), a portal
 * to room "u" and back. */
function townWorld(): WorldDefinition {
  return fixtureWorld([
    {
      id: "t",
      rows: openRoom(24, 14),
      objects: [
        { type: "spawn", name: "s1", tx: 12, ty: 8 },
        { type: "spawn", name: "s2", tx: 13, ty: 8 },
        { type: "notice_board", name: "board", tx: 12, ty: 10, props: { title: "Town board" } },
        { type: "seat", name: "chair_1", tx: 14, ty: 10, props: { facing: "down" } },
        { type: "seat", name: "bench_1", tx: 15, ty: 10, props: { facing: "up", style: "bench" } },
        { type: "private_room", name: "booth_sign", tx: 6, ty: 4, props: { region: "booth", private: true } },
        { type: "portal", name: "to_u", tx: 22, ty: 6, props: { targetRoom: "u", targetTx: 2, targetTy: 2 } },
      ],
      regions: [
        { id: "booth", label: "The Booth", tx: 1, ty: 1, w: 6, h: 5 },
        { id: "square", label: "Square", tx: 7, ty: 1, w: 16, h: 12 },
      ],
    },
    {
      id: "u",
      rows: openRoom(10, 8),
      objects: [
        { type: "spawn", name: "s3", tx: 4, ty: 4 },
        { type: "portal", name: "to_t", tx: 1, ty: 6, props: { targetRoom: "t", targetTx: 21, targetTy: 6 } },
      ],
    },
  ]);
}

function outcome(r: InputResult) {
  if (!r.ok || (r.value.kind !== "interact" && r.value.kind !== "moderate"))
    throw new Error(`unexpected ${JSON.stringify(r)}`);
  return r.value.outcome;
}
const act = (
  world: World,
  entityId: string,
  targetId: string,
  action: string,
  params?: Record<string, unknown>,
) => outcome(one(world, { kind: "interact", entityId, targetId, action, ...(params ? { params } : {}) }));
const notes = (world: World) => world.objectView("obj_board")!.state.notes as Note[];

/** The world restored from its own snapshot writes the same snapshot. */
function roundTrip(world: World): World {
  const snap = world.snapshot();
  const back = World.restore(world.definition, JSON.parse(JSON.stringify(snap)) as WorldSnapshot);
  expect(back.snapshotHash()).toBe(world.snapshotHash());
  return back;
}

describe("place rules (shared with the web client)", () => {
  const booth = { id: "booth", tile: { tx: 1, ty: 1 }, widthTiles: 6, heightTiles: 5 };
  const square = { id: "square", tile: { tx: 0, ty: 0 }, widthTiles: 20, heightTiles: 10 };
  it("the most specific place wins; private places split who hears whom", () => {
    expect(placeAt([square, booth], 2, 2)?.id).toBe("booth");
    expect(placeAt([square, booth], 10, 2)?.id).toBe("square");
    expect(placeAt([square, booth], 30, 2)).toBeUndefined();
    expect(hearingZoneAt([booth], 2, 2)).toBe("booth");
    expect(withinHearing([booth], { tx: 2, ty: 2 }, { tx: 3, ty: 3 })).toBe(true);
    expect(withinHearing([booth], { tx: 2, ty: 2 }, { tx: 9, ty: 3 })).toBe(false);
    expect(withinHearing([booth], { tx: 9, ty: 2 }, { tx: 2, ty: 3 })).toBe(false);
    expect(withinHearing([], { tx: 2, ty: 2 }, { tx: 9, ty: 3 })).toBe(true);
  });
});

describe("notice board", () => {
  it("posts and reads notes, bounded per author and in time; twice in a row", () => {
    const world = World.create(townWorld());
    world.step([join("agt_a"), join("hum_b")]);
    walkTo(world, "agt_a", 12, 9);
    expect(act(world, "agt_a", "obj_board", "read").message).toMatch(/empty/);
    expect(act(world, "agt_a", "obj_board", "post", { text: "  Lunch at noon  " })).toEqual({
      type: "ok",
      message: "Your note is on the board.",
    });
    expect(notes(world)).toEqual([
      { id: "n1", by: "agt_a", name: "a", text: "Lunch at noon", tsMs: expect.any(Number) },
    ]);
    const soon = act(world, "agt_a", "obj_board", "post", { text: "again" });
    expect(soon.type).toBe("no_effect");
    expect(soon.message).toMatch(/wait \d+ s/);
    run(world, (NOTE_LIMITS.intervalMs / 1000) * 20);
    expect(act(world, "agt_a", "obj_board", "post", { text: "second" }).type).toBe("ok");
    expect(act(world, "agt_a", "obj_board", "read").message).toBe("2 notes. a: second | a: Lunch at noon");
    const view = world.objectView("obj_board")!;
    expect(view.affords.map((a) => a.action)).toEqual(["read", "post"]);
    expect(view.affords[1]!.paramsSchema).toMatchObject({ required: ["text"] });
  });

  it("refuses bad notes with a clear outcome and stores nothing", () => {
    const world = World.create(townWorld());
    one(world, join("agt_a"));
    walkTo(world, "agt_a", 12, 9);
    for (const params of [
      {},
      { text: "" },
      { text: "   " },
      { text: 5 },
      { text: "x".repeat(201) },
      { text: "a\nb" },
      { text: "ok", extra: 1 },
    ])
      expect(act(world, "agt_a", "obj_board", "post", params).type, JSON.stringify(params)).toBe(
        "invalid_action",
      );
    expect(notes(world)).toEqual([]);
    walkTo(world, "agt_a", 3, 3);
    expect(act(world, "agt_a", "obj_board", "post", { text: "far" }).type).toBe("too_far");
  });

  it("holds at most perAuthor notes of one author and perBoard in all (the oldest falls off)", () => {
    const world = World.create(townWorld());
    const ids = ["agt_a", "agt_b", "agt_c", "agt_d", "agt_e"];
    world.step(ids.map((id) => join(id)));
    // Nobody ends a walk on another's tile: five tiles around the board, each within reach of it.
    const spots = [
      [11, 9],
      [12, 9],
      [13, 9],
      [12, 11],
      [13, 11],
    ] as const;
    ids.forEach((id, i) => {
      walkTo(world, id, spots[i]![0], spots[i]![1]);
    });
    for (let round = 0; round < NOTE_LIMITS.perAuthor; round++) {
      for (const id of ids)
        expect(act(world, id, "obj_board", "post", { text: `${id} #${round}` }).type).toBe("ok");
      run(world, (NOTE_LIMITS.intervalMs / 1000) * 20);
    }
    expect(notes(world).length).toBe(NOTE_LIMITS.perBoard);
    expect(notes(world)[0]!.id).toBe("n4"); // n1..n3 fell off
    // e's three notes are all still up: a fourth is refused; a lost n1 to the full board, so posts again.
    expect(act(world, "agt_e", "obj_board", "post", { text: "one more" })).toMatchObject({
      type: "no_effect",
      message: expect.stringMatching(/already have 3/),
    });
    expect(act(world, "agt_a", "obj_board", "post", { text: "one more" }).type).toBe("ok");
  });

  it("only the operator removes a note (a moderation input), and the removal is durable state", () => {
    const world = World.create(townWorld());
    one(world, join("agt_a"));
    walkTo(world, "agt_a", 12, 9);
    act(world, "agt_a", "obj_board", "post", { text: "remove me" });
    expect(act(world, "agt_a", "obj_board", "remove", { noteId: "n1" }).type).toBe("invalid_action");
    const notOperator = one(world, {
      kind: "moderate",
      entityId: "agt_a",
      targetId: "obj_board",
      action: "remove",
      params: { noteId: "n1" },
    } as Input);
    expect(!notOperator.ok && notOperator.error.code).toBe("bad_request");
    const moderate = (noteId: string) =>
      world.step([
        {
          kind: "moderate",
          entityId: OPERATOR_ENTITY_ID,
          targetId: "obj_board",
          action: "remove",
          params: { noteId },
        },
      ]);
    const removed = moderate("n1");
    expect(outcome(removed.results[0]!)).toEqual({ type: "ok", message: "note n1 removed" });
    expect(removed.events.map((e) => [e.type, e.payload.patch])).toEqual([
      ["object.state_changed", [{ op: "replace", path: "/notes", value: [] }]],
    ]);
    expect(outcome(moderate("n1").results[0]!).type).toBe("no_effect");
    const unknown = world.step([
      { kind: "moderate", entityId: OPERATOR_ENTITY_ID, targetId: "obj_nope", action: "remove" },
    ]);
    expect(!unknown.results[0]!.ok && unknown.results[0]!.error.code).toBe("not_found");
    const door = world.step([
      { kind: "moderate", entityId: OPERATOR_ENTITY_ID, targetId: "obj_chair_1", action: "remove" },
    ]);
    expect(outcome(door.results[0]!).type).toBe("invalid_action");
  });

  it("notes survive a snapshot exactly, and a malformed saved board is refused", () => {
    const world = World.create(townWorld());
    one(world, join("hum_h"));
    walkTo(world, "hum_h", 12, 9);
    act(world, "hum_h", "obj_board", "post", { text: "kept across a restart ✓" });
    const back = roundTrip(world);
    expect(back.objectView("obj_board")).toEqual(world.objectView("obj_board"));
    const bad = (edit: (notes: Record<string, unknown>[]) => void) => {
      const snap = JSON.parse(JSON.stringify(world.snapshot())) as WorldSnapshot;
      const board = (
        snap.state.objects as { id: string; state: { notes: Record<string, unknown>[] } }[]
      ).find((o) => o.id === "obj_board")!;
      edit(board.state.notes);
      expect(() => World.restore(world.definition, snap)).toThrow(SnapshotMismatchError);
    };
    bad((n) => n.push({ ...n[0], id: "n1" }));
    bad((n) => {
      n[0]!.text = "";
    });
    bad((n) => {
      n[0]!.id = "n9";
    });
    bad((n) => {
      n[0]!.extra = 1;
    });
    bad((n) => {
      for (let i = 0; i < 20; i++) n.push({ ...n[0], id: `n${i + 2}` });
    });
  });
});

describe("seats", () => {
  it("sit puts the actor on the seat facing its way; stand and walking off free it; twice in a row", () => {
    const world = World.create(townWorld());
    world.step([join("agt_a"), join("hum_b")]);
    walkTo(world, "agt_a", 14, 9);
    for (let round = 0; round < 2; round++) {
      expect(act(world, "agt_a", "obj_chair_1", "sit")).toEqual({
        type: "ok",
        message: "You sit on the chair.",
      });
      expect(world.getEntity("agt_a")).toMatchObject({ tile: { tx: 14, ty: 10 }, facing: "down", speed: 0 });
      expect(world.objectView("obj_chair_1")!.state.occupant).toBe("agt_a");
      expect(world.objectView("obj_chair_1")!.affords).toEqual([{ action: "stand", label: "Stand up" }]);
      expect(act(world, "agt_a", "obj_chair_1", "sit").type).toBe("no_effect");
      walkTo(world, "hum_b", 13, 10);
      expect(act(world, "hum_b", "obj_chair_1", "sit")).toEqual({
        type: "no_effect",
        message: "Someone is sitting here.",
      });
      expect(act(world, "hum_b", "obj_chair_1", "stand").type).toBe("no_effect");
      if (round === 0)
        expect(act(world, "agt_a", "obj_chair_1", "stand")).toEqual({ type: "ok", message: "You stand up." });
      else {
        const walked = world.step([{ kind: "moveTo", entityId: "agt_a", dest: { tx: 14, ty: 8 } }]);
        expect(walked.events.map((e) => [e.type, e.actorId, e.payload.patch])).toEqual([
          ["object.state_changed", "agt_a", [{ op: "replace", path: "/occupant", value: "" }]],
        ]);
      }
      expect(world.objectView("obj_chair_1")!.state.occupant).toBe("");
      walkTo(world, "agt_a", 14, 9);
    }
  });

  it("moving to another seat frees the first; leaving the room frees the seat", () => {
    const world = World.create(townWorld());
    one(world, join("agt_a"));
    walkTo(world, "agt_a", 14, 9);
    act(world, "agt_a", "obj_chair_1", "sit");
    expect(act(world, "agt_a", "obj_bench_1", "sit").type).toBe("ok");
    expect(world.objectView("obj_chair_1")!.state.occupant).toBe("");
    expect(world.objectView("obj_bench_1")!.state.occupant).toBe("agt_a");
    expect(world.getEntity("agt_a")!.facing).toBe("up");
    const left = world.step([{ kind: "leave", entityId: "agt_a", reason: "disconnect" }]);
    expect(left.events.map((e) => e.type)).toEqual(["object.state_changed", "presence.leave"]);
    expect(world.objectView("obj_bench_1")!.state.occupant).toBe("");
  });

  it("a seated world restores exactly; a seat held by someone absent is refused", () => {
    const world = World.create(townWorld());
    one(world, join("agt_a"));
    walkTo(world, "agt_a", 14, 9);
    act(world, "agt_a", "obj_chair_1", "sit");
    const back = roundTrip(world);
    // The restored world still knows who sits where: walking off frees the seat there too.
    back.step([{ kind: "moveDir", entityId: "agt_a", dx: 0, dy: -1 }]);
    expect(back.objectView("obj_chair_1")!.state.occupant).toBe("");
    const snap = JSON.parse(JSON.stringify(world.snapshot())) as WorldSnapshot;
    snap.state.actors = [];
    snap.state.proximity = [];
    expect(() => World.restore(world.definition, snap)).toThrow(/holds agt_a, who is not in its room/);
  });
});

describe("private room", () => {
  /** a in the booth, b just outside it (within the chat radius), c in the booth too, by its sign. */
  function seated() {
    const world = World.create(townWorld());
    world.step([join("agt_a"), join("agt_b"), join("hum_c")]);
    walkTo(world, "agt_a", 5, 3);
    walkTo(world, "hum_c", 5, 4);
    walkTo(world, "agt_b", 8, 4);
    return world;
  }
  const heard = (world: World, id: string, since: number) =>
    world.chatFor(id, "t", since).map((m) => m.message);

  it("chat said inside is heard only inside, on either channel; outside chat does not reach in", () => {
    const world = seated();
    const since = world.serverTsMs;
    world.step([{ kind: "chat", entityId: "agt_a", channel: "proximity", message: "inside, near" }]);
    world.step([{ kind: "chat", entityId: "agt_a", channel: "global", message: "inside, room" }]);
    world.step([{ kind: "chat", entityId: "agt_b", channel: "proximity", message: "outside, near" }]);
    world.step([{ kind: "chat", entityId: "agt_b", channel: "global", message: "outside, room" }]);
    expect(heard(world, "agt_a", since)).toEqual(["inside, near", "inside, room"]);
    expect(heard(world, "hum_c", since)).toEqual(["inside, near", "inside, room"]);
    expect(heard(world, "agt_b", since)).toEqual(["outside, near", "outside, room"]);
    // An agent's perception is the same rule: its events hold only what it could hear.
    const said = (id: string) =>
      world
        .eventsFor(id, "t", 0, 500)
        .events.filter((e) => e.type === "chat.message")
        .map((e) => e.payload.message);
    expect(said("agt_b")).toEqual(["outside, near", "outside, room"]);
    expect(said("agt_a")).toEqual(["inside, near", "inside, room"]);
    // A newcomer reading the room's recent chat sees the room-wide line said outside, not inside.
    expect(world.chatHistoryFor("hum_new", "t", since, 30).map((m) => m.message)).toEqual(["outside, room"]);
    expect(world.chatHistoryFor("hum_c", "t", since, 30).map((m) => m.message)).toEqual([
      "inside, near",
      "inside, room",
      "outside, room",
    ]);
  });

  it("nobody opens it on others inside: not one of them, not someone outside (issue #41)", () => {
    const world = seated();
    for (const who of ["hum_c", "agt_a", "agt_b"]) {
      expect(act(world, who, "obj_booth_sign", "make_public")).toMatchObject({
        type: "no_effect",
        message: expect.stringMatching(/stays private while (someone else is|2 others are) inside/),
      });
    }
    expect(world.objectView("obj_booth_sign")!.state.private).toBe(true);
  });

  it("made public, it carries as usual; made private again, it is private; the state is in snapshots", () => {
    const world = seated();
    expect(act(world, "hum_c", "obj_booth_sign", "read").message).toMatch(/private/);
    walkTo(world, "hum_c", 8, 2); // a is alone inside: it may open the room
    for (const [action, open] of [
      ["make_public", true],
      ["make_private", false],
    ] as const) {
      expect(act(world, "agt_a", "obj_booth_sign", action).type).toBe("ok");
      expect(act(world, "agt_a", "obj_booth_sign", action).type).toBe("no_effect");
      const since = world.serverTsMs;
      world.step([{ kind: "chat", entityId: "agt_a", channel: "proximity", message: `open=${open}` }]);
      expect(heard(world, "agt_b", since)).toEqual(open ? [`open=${open}`] : []);
      roundTrip(world);
    }
  });
});

describe("stepping onto a portal uses it", () => {
  it("walking onto the portal tile carries the actor through; the events name both rooms; twice", () => {
    const world = World.create(townWorld());
    one(world, join("hum_h"));
    for (let round = 0; round < 2; round++) {
      walkTo(world, "hum_h", 20, 6);
      one(world, { kind: "moveTo", entityId: "hum_h", dest: { tx: 22, ty: 6 } });
      const events = run(world, 40).flatMap((r) => r.events);
      expect(world.getEntity("hum_h")).toMatchObject({ roomId: "u", tile: { tx: 2, ty: 2 } });
      const leave = events.find((e) => e.type === "presence.leave")!;
      const arrive = events.find((e) => e.type === "presence.join")!;
      expect([leave.roomId, leave.toRoomId, arrive.roomId, arrive.fromRoomId]).toEqual(["t", "u", "u", "t"]);
      expect(leave.payload).toEqual({ entityId: "hum_h", reason: "disconnect" });
      // And back by WASD onto the other room's portal.
      walkTo(world, "hum_h", 1, 5);
      one(world, { kind: "moveDir", entityId: "hum_h", dx: 0, dy: 1 });
      run(world, 20);
      expect(world.getEntity("hum_h")).toMatchObject({ roomId: "t", tile: { tx: 21, ty: 6 } });
      one(world, { kind: "moveDir", entityId: "hum_h", dx: 0, dy: 0 });
      roundTrip(world);
    }
  });

  it("a portal whose target tile holds a portal is refused when the world loads", () => {
    const def = () =>
      fixtureWorld([
        {
          id: "t",
          rows: openRoom(10, 8),
          objects: [
            { type: "spawn", name: "s", tx: 2, ty: 2 },
            {
              type: "portal",
              name: "p1",
              tx: 5,
              ty: 5,
              props: { targetRoom: "t", targetTx: 6, targetTy: 5 },
            },
            {
              type: "portal",
              name: "p2",
              tx: 6,
              ty: 5,
              props: { targetRoom: "t", targetTx: 2, targetTy: 3 },
            },
          ],
        },
      ]);
    expect(def).toThrow(/holds a portal/);
  });
});
