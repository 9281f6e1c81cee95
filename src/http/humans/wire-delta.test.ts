// The binary delta frames: decode(encode(diff)) applied to what a viewer had is what it should see
// now, for random streams (moves, renames, looks, actors leaving and coming back, viewers missing
// patches or re-entering from a snapshot); a viewer never receives an actor outside its interest set;
// malformed frames are refused with a typed error.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PatchFragments, SentView } from "./patch-fragments.ts";
import type { WireEntity } from "./protocol.ts";
import {
  assembleFrame,
  DeltaDecoder,
  encodeFull,
  encodeUpdate,
  FACINGS,
  ServerFrameReader,
  TAG_DELTA_V1,
  WireFormatError,
} from "./wire-delta.ts";

type Actor = Omit<WireEntity, "h">;
const ids = ["hum_a", "hum_b", "agt_c", "agt_d", "hum_é", "agt_f"];

const actorArb = (id: string) =>
  fc.record({
    id: fc.constant(id),
    kind: fc.constant(id.startsWith("agt_") ? ("agent" as const) : ("human" as const)),
    name: fc.constantFrom(id, `${id} 🦀`, "Ada"),
    x: fc.integer({ min: -50, max: 5000 }),
    y: fc.integer({ min: -50, max: 5000 }),
    tx: fc.integer({ min: 0, max: 300 }),
    ty: fc.integer({ min: 0, max: 300 }),
    facing: fc.constantFrom(...FACINGS),
    look: fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }),
    thinking: fc.option(fc.constant(true), { nil: undefined }),
    asleep: fc.option(fc.constant(true), { nil: undefined }),
    unwell: fc.option(fc.constant(true), { nil: undefined }),
  });

/** One patch: which actors exist and where, and per viewer whether its socket keeps up, whether it
 * re-enters from a snapshot, and which existing actors are in its interest set. */
const patchArb = (viewers: number) =>
  fc.record({
    actors: fc.tuple(...ids.map((id) => fc.option(actorArb(id), { nil: undefined, freq: 4 }))),
    viewers: fc.array(
      fc.record({
        skip: fc.nat(4).map((n) => n === 0),
        reenter: fc.nat(9).map((n) => n === 0),
        sees: fc.array(fc.boolean(), { minLength: ids.length, maxLength: ids.length }),
      }),
      { minLength: viewers, maxLength: viewers },
    ),
  });

const strip = ({ away: _away, ...e }: WireEntity) => e;
const byId = (list: WireEntity[]) => [...list].map(strip).sort((a, b) => a.id.localeCompare(b.id));

describe("binary delta frames", () => {
  it("round-trips random streams: the decoded state equals what the viewer should see, and nothing outside its interest set arrives", () => {
    fc.assert(
      fc.property(fc.array(patchArb(3), { minLength: 1, maxLength: 25 }), (patches) => {
        const fragments = new PatchFragments();
        const viewers = [0, 1, 2].map(() => ({
          sent: new SentView(),
          decoder: new DeltaDecoder(),
        }));
        let tick = 0;
        for (const patch of patches) {
          tick += 1;
          const world = new Map<string, Actor>();
          for (const a of patch.actors) if (a) world.set(a.id, a);
          fragments.sweep((id) => world.has(id));
          const make = (a: Actor, h: number): WireEntity => ({ ...a, h });
          fragments.begin();
          patch.viewers.forEach((p, v) => {
            const viewer = viewers[v]!;
            const interest = ids.filter((id, i) => p.sees[i] && world.has(id));
            if (p.reenter) {
              // A (re)join outside the patch: the snapshot, built afresh, replaces what the client had.
              fragments.end();
              const snapshot = interest.map((id) => fragments.wire(world.get(id)!, make));
              fragments.begin();
              viewer.sent.reset(snapshot);
              viewer.decoder.reset(JSON.parse(JSON.stringify(snapshot)));
              return;
            }
            if (p.skip) return; // a slow socket misses this patch; the next one heals it
            const visible = interest.map((id) => fragments.wire(world.get(id)!, make));
            const frame = fragments.frameFor(tick, viewer.sent, visible);
            if (!frame) {
              expect(byId(viewer.decoder.entities())).toEqual(byId(visible));
              return;
            }
            const decoded = viewer.decoder.decode(frame);
            expect(decoded.tick).toBe(tick);
            for (const e of [...decoded.add, ...decoded.update]) expect(interest).toContain(e.id);
            expect(byId(viewer.decoder.entities())).toEqual(byId(visible));
            expect(byId([...viewer.sent.values()])).toEqual(byId(visible));
          });
          fragments.end();
        }
      }),
      { numRuns: 300 },
    );
  });

  it("sends only changed fields, in a few bytes; a newcomer gets the whole actor; a leaver a remove", () => {
    const fragments = new PatchFragments();
    const a: Actor = {
      id: "hum_a",
      kind: "human",
      name: "Ada",
      x: 100,
      y: 200,
      tx: 3,
      ty: 6,
      facing: "down",
    };
    const sentA = new SentView();
    const decoder = new DeltaDecoder();
    fragments.begin();
    const first = fragments.frameFor(1, sentA, [fragments.wire(a, (s, h) => ({ ...s, h }))])!;
    fragments.end();
    expect(decoder.decode(first).add).toEqual([{ ...a, h: 1 }]);
    fragments.begin();
    const moved = fragments.frameFor(2, sentA, [fragments.wire(a, (s, h) => ({ ...s, h, x: 104 }))])!;
    fragments.end();
    // tag, tick, 0 removes, flags, handle, dx: six bytes for a step.
    expect(moved.length).toBe(6);
    expect(decoder.decode(moved)).toEqual({
      type: "delta",
      tick: 2,
      add: [],
      update: [{ id: "hum_a", x: 104 }],
      remove: [],
    });
    fragments.begin();
    expect(
      fragments.frameFor(3, sentA, [fragments.wire(a, (s, h) => ({ ...s, h, x: 104 }))]),
    ).toBeUndefined();
    const gone = fragments.frameFor(3, sentA, [])!;
    fragments.end();
    expect(decoder.decode(gone).remove).toEqual(["hum_a"]);
    expect(decoder.entities()).toEqual([]);
  });

  it("shares one record per actor per patch across viewers", () => {
    const fragments = new PatchFragments();
    const a: Actor = { id: "agt_c", kind: "agent", name: "C", x: 1, y: 2, tx: 0, ty: 0, facing: "left" };
    const one = new SentView();
    const two = new SentView();
    fragments.begin();
    const w1 = fragments.wire(a, (s, h) => ({ ...s, h }));
    const w2 = fragments.wire(a, () => {
      throw new Error("built twice in one patch");
    });
    expect(w2).toBe(w1);
    const f1 = fragments.frameFor(1, one, [w1])!;
    const f2 = fragments.frameFor(1, two, [w2])!;
    fragments.end();
    expect(f2).toEqual(f1);
    expect(one.get(a.id)).toBe(two.get(a.id));
  });

  it("refuses malformed frames with WireFormatError, never anything else", () => {
    const good = new Uint8Array([
      TAG_DELTA_V1,
      5,
      0,
      ...encodeFull({ h: 3, id: "hum_a", kind: "human", name: "A", x: 1, y: 1, tx: 0, ty: 0, facing: "up" }),
    ]);
    for (const cut of [1, 2, ...Array.from({ length: good.length - 4 }, (_, i) => i + 4)]) {
      expect(() => new DeltaDecoder().decode(good.subarray(0, cut)), `cut at ${cut}`).toThrow(
        WireFormatError,
      );
    }
    expect(() => new DeltaDecoder().decode(new Uint8Array([0x7b, 0x7d]))).toThrow(/tag/);
    expect(() => new DeltaDecoder().decode(new Uint8Array([TAG_DELTA_V1, 1, 1, 9]))).toThrow(
      /unknown handle/,
    );
    expect(() => new DeltaDecoder().decode(new Uint8Array([TAG_DELTA_V1, 1, 0, 0x01, 9, 2]))).toThrow(
      /unknown handle/,
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          new DeltaDecoder().decode(new Uint8Array([TAG_DELTA_V1, ...bytes]));
        } catch (error) {
          expect(error).toBeInstanceOf(WireFormatError);
        }
      }),
    );
  });

  it("a snapshot (any message with entities) resets the handles the next frames use", () => {
    const reader = new ServerFrameReader();
    const ada: WireEntity = {
      h: 7,
      id: "hum_ada",
      kind: "human",
      name: "Ada",
      x: 10,
      y: 10,
      tx: 0,
      ty: 0,
      facing: "up",
    };
    expect(reader.read(JSON.stringify({ type: "welcome", entities: [ada] })).type).toBe("welcome");
    const step = assembleFrame(9, [], [encodeUpdate(ada, { ...ada, x: 12 })]);
    expect(reader.read(step)).toMatchObject({ type: "delta", update: [{ id: "hum_ada", x: 12 }] });
    // A later snapshot without her: her handle is gone, so a frame naming it is refused (and resyncs).
    reader.read(JSON.stringify({ type: "room", entities: [] }));
    expect(() => reader.read(step)).toThrow(WireFormatError);
    expect(reader.read(JSON.stringify({ type: "pong", serverTsMs: 1 }))).toEqual({
      type: "pong",
      serverTsMs: 1,
    });
  });
});
