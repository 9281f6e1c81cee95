import { describe, expect, it } from "vitest";
import { parseWorld } from "../definition.ts";
import { definitionToWire } from "../definition-wire.ts";
import { OPERATOR_ENTITY_ID } from "../ids.ts";
import { type FixtureRoom, fixtureFiles, fixtureWorld, openRoom } from "../testing/fixtures.ts";
import { join, one, run } from "../testing/helpers.ts";
import type { InputResult, WorldDefinition } from "../types.ts";
import { World } from "../world.ts";
import { PLOT_DEFAULTS, stageAfter } from "./garden-plot.ts";

const PLOT = "obj_plot";
const TICKS_PER_SEC = 20; // the fixture world's tick_rate
const GROW_SEC = 30;
const THIRST_SEC = 12;

function gardenRoom(props: Record<string, number> = { growSeconds: GROW_SEC, thirstSeconds: THIRST_SEC }) {
  return {
    id: "garden",
    rows: openRoom(12, 8),
    objects: [
      { type: "spawn", name: "s1", tx: 2, ty: 2 },
      { type: "garden_plot", name: "plot", tx: 3, ty: 3, props },
    ],
  } satisfies FixtureRoom;
}

const garden = (): WorldDefinition => fixtureWorld([gardenRoom()]);

function outcome(r: InputResult) {
  if (!r.ok || r.value.kind !== "interact") throw new Error(`unexpected ${JSON.stringify(r)}`);
  return r.value.outcome;
}

const use = (world: World, who: string, action: string) =>
  outcome(one(world, { kind: "interact", entityId: who, targetId: PLOT, action }));
const state = (world: World) => world.objectView(PLOT)!.state;
const seconds = (world: World, sec: number) => run(world, sec * TICKS_PER_SEC);

/** Fern and Bram in the garden, Fern's seed planted. */
function planted(def = garden()): World {
  const world = World.create(def);
  world.step([join("agt_fern"), join("hum_bram")]);
  expect(use(world, "agt_fern", "plant").type).toBe("ok");
  return world;
}

describe("garden plot: planting and growing", () => {
  it("an empty plot offers planting; a planted one keeps its planter's name and offers water", () => {
    const world = World.create(garden());
    world.step([join("agt_fern")]);
    expect(state(world)).toMatchObject({ stage: "empty", planter: "", wilted: false });
    expect(world.objectView(PLOT)!.affords.map((a) => a.action)).toEqual(["read", "plant"]);
    expect(use(world, "agt_fern", "water")).toEqual({
      type: "no_effect",
      message: "Nothing is planted here: plant first.",
    });
    const planting = use(world, "agt_fern", "plant");
    expect(planting.message).toMatch(/^You plant and water a seed\. A seedling, planted by fern;/);
    expect(state(world)).toMatchObject({ stage: "seedling", planter: "agt_fern", planterName: "fern" });
    expect(world.objectView(PLOT)!.affords.map((a) => a.action)).toEqual(["read", "water", "clear"]);
    expect(use(world, "agt_fern", "plant").type).toBe("no_effect");
  });

  it("grows with simulation time alone: growing after a third of the span, flowering at its end", () => {
    const world = planted();
    // Watered every 10 s (thirst is 12 s), so only time decides the stage.
    const stages: string[] = [];
    for (let s = 0; s < GROW_SEC; s += 5) {
      if (s % 10 === 0) use(world, "hum_bram", "water");
      seconds(world, 5);
      stages.push(String(state(world).stage));
    }
    expect(stages[0]).toBe("seedling");
    expect(stages).toContain("growing");
    expect(stages.at(-1)).toBe("flowering");
    expect(stages.indexOf("growing")).toBe(1); // 10 s and a few ticks: a third of 30 s
  });

  it("a stage reached is an object.state_changed of the room, with no actor (time did it)", () => {
    const world = planted();
    const steps = seconds(world, GROW_SEC / 3 + 1);
    const changes = steps.flatMap((s) => s.events).filter((e) => e.type === "object.state_changed");
    expect(changes.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        objectId: PLOT,
        patch: [{ op: "replace", path: "/stage", value: "growing" }],
      }),
    ]);
    expect(changes[0]!.actorId).toBeUndefined();
  });

  it("stageAfter: thirds of the span, in whole ms", () => {
    expect(stageAfter(0, 30)).toBe("seedling");
    expect(stageAfter(9_999, 30)).toBe("seedling");
    expect(stageAfter(10_000, 30)).toBe("growing");
    expect(stageAfter(29_999, 30)).toBe("growing");
    expect(stageAfter(30_000, 30)).toBe("flowering");
  });
});

describe("garden plot: water", () => {
  it("one who tends plots would water it once half its thirst has passed, and a wilted one; an empty plot needs nothing", () => {
    const needs = (world: World) => world.objectView(PLOT)!.needs;
    const empty = World.create(garden());
    expect(needs(empty)).toBeUndefined();
    const world = planted();
    seconds(world, THIRST_SEC / 2 - 1);
    expect(needs(world)).toBeUndefined();
    seconds(world, 1);
    expect(needs(world)).toBe("water");
    use(world, "hum_bram", "water");
    expect(needs(world)).toBeUndefined();
    seconds(world, THIRST_SEC);
    expect(state(world).wilted).toBe(true);
    expect(needs(world)).toBe("water");
  });

  it("unwatered for thirstSeconds it wilts and stops growing; water revives it and growth goes on", () => {
    const world = planted();
    seconds(world, THIRST_SEC - 1);
    expect(state(world)).toMatchObject({ stage: "growing", wilted: false });
    seconds(world, 1);
    expect(state(world)).toMatchObject({ stage: "growing", wilted: true, grownMs: THIRST_SEC * 1000 });
    expect(use(world, "hum_bram", "read").message).toBe(
      "A wilted growing plant, planted by fern. It needs water.",
    );
    // Left wilted far past the span: it does not grow.
    seconds(world, GROW_SEC);
    expect(state(world)).toMatchObject({ stage: "growing", wilted: true });
    expect(use(world, "hum_bram", "water").message).toMatch(
      /^You water the plot\. It perks up\. A growing plant, planted by fern;/,
    );
    expect(state(world).wilted).toBe(false);
    // Watered again within its thirst, it grows the rest of the span (30 - 12 s) and flowers.
    seconds(world, 10);
    use(world, "hum_bram", "water");
    seconds(world, 7);
    expect(state(world)).toMatchObject({ stage: "growing", wilted: false });
    seconds(world, 1);
    expect(state(world)).toMatchObject({ stage: "flowering", wilted: false });
  });

  it("watering a healthy plant puts its thirst off again", () => {
    const world = planted();
    seconds(world, THIRST_SEC - 2);
    expect(use(world, "hum_bram", "water").type).toBe("ok");
    seconds(world, THIRST_SEC - 2);
    expect(state(world).wilted).toBe(false);
    seconds(world, 2);
    expect(state(world).wilted).toBe(true);
  });
});

describe("garden plot: clearing", () => {
  it("only the planter clears a healthy plant; anyone picks its flowers or clears it wilted", () => {
    const world = planted();
    expect(use(world, "hum_bram", "clear")).toEqual({
      type: "no_effect",
      message: "fern planted this; anyone may clear it once it flowers or wilts.",
    });
    seconds(world, THIRST_SEC);
    expect(state(world).wilted).toBe(true);
    expect(use(world, "hum_bram", "clear").message).toBe("You clear the plot.");
    expect(state(world)).toMatchObject({ stage: "empty", planter: "", planterName: "", grownMs: 0 });

    expect(use(world, "agt_fern", "plant").type).toBe("ok");
    for (let s = 0; s < GROW_SEC; s += 10) {
      use(world, "agt_fern", "water");
      seconds(world, 10);
    }
    expect(state(world)).toMatchObject({ stage: "flowering", wilted: false });
    expect(world.objectView(PLOT)!.affords.find((a) => a.action === "clear")!.label).toBe("Pick the flowers");
    expect(use(world, "hum_bram", "clear").message).toBe("You pick the flowers; the plot is empty.");
    expect(state(world)).toEqual(World.create(garden()).objectView(PLOT)!.state);
  });

  it("its planter clears it at any time", () => {
    const world = planted();
    expect(use(world, "agt_fern", "clear").message).toBe("You clear the plot.");
    expect(state(world).stage).toBe("empty");
  });
});

describe("garden plot: the world's rules", () => {
  it("same inputs, same state; a snapshot mid-growth restores and grows on exactly as the original", () => {
    const a = planted();
    const b = planted();
    seconds(a, 7);
    seconds(b, 7);
    expect(a.snapshotHash()).toBe(b.snapshotHash());
    const snap = JSON.parse(JSON.stringify(a.snapshot()));
    const saved = snap.state.objects.find((o: { id: string }) => o.id === PLOT);
    expect(saved.state).toMatchObject({ stage: "seedling", planter: "agt_fern", planterName: "fern" });
    const restored = World.restore(garden(), snap);
    expect(restored.snapshotHash()).toBe(a.snapshotHash());
    // Past a stage and a wilt, both worlds agree tick by tick.
    for (let i = 0; i < 10 * TICKS_PER_SEC; i++) {
      const [x, y] = [a.step([]), restored.step([])];
      expect(y.events).toEqual(x.events);
    }
    expect(restored.objectView(PLOT)).toEqual(a.objectView(PLOT));
    expect(state(a)).toMatchObject({ stage: "growing", wilted: true });
    // A saved plot is checked like a request.
    saved.state.planter = "";
    expect(() => World.restore(garden(), snap)).toThrow(/planterName|planter/);
  });

  it("spans default to an hour to flower and 20 minutes of thirst; out-of-range spans are refused", () => {
    const world = World.create(fixtureWorld([gardenRoom({})]));
    expect(state(world)).toMatchObject({
      growSeconds: PLOT_DEFAULTS.growSeconds,
      thirstSeconds: PLOT_DEFAULTS.thirstSeconds,
    });
    expect(PLOT_DEFAULTS).toEqual({ growSeconds: 3600, thirstSeconds: 1200 });
    expect(() => parseWorld(fixtureFiles([gardenRoom({ growSeconds: 1 })]))).toThrow(/growSeconds/);
  });

  it("a plot does not block its tile", () => {
    expect(World.create(garden()).isBlocked("garden", { tx: 3, ty: 3 })).toBe(false);
  });
});

describe("garden plot: a live reload of the world", () => {
  it("a planted plot keeps its state and goes on growing in the new definition", () => {
    const world = planted();
    const room = gardenRoom();
    const next = fixtureWorld([
      {
        ...room,
        objects: [...room.objects, { type: "sign", name: "sign_new", tx: 8, ty: 5, props: { text: "New" } }],
      },
    ]);
    const answer = world.step([
      { kind: "redefine", entityId: OPERATOR_ENTITY_ID, definition: definitionToWire(next) },
    ]).results[0]!;
    expect(answer.ok).toBe(true);
    expect(state(world)).toMatchObject({ stage: "seedling", planter: "agt_fern" });
    seconds(world, GROW_SEC / 3 + 1);
    expect(state(world).stage).toBe("growing");
  });
});
