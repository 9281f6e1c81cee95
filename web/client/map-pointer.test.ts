import { describe, expect, it } from "vitest";
import type { WireEntity, WireObject } from "../../src/http/humans/protocol.ts";
import { clickOnTile, hoverOnTile } from "./map-pointer.ts";

const chair = {
  id: "obj_chair",
  objectType: "seat",
  name: "chair",
  tx: 9,
  ty: 7,
  state: { occupant: "" },
  version: 1,
  affords: [{ action: "sit", label: "Sit down" }],
} as unknown as WireObject;
const guide = { id: "agt_guide", name: "Guide", tx: 9, ty: 7 } as WireEntity;
const at =
  <T>(thing: T) =>
  (tx: number, ty: number) =>
    tx === 9 && ty === 7 ? thing : undefined;
const pointer = { x: 1, y: 2 };

describe("the pointer on a tile", () => {
  it("someone standing on a free chair comes before the chair: hover and click talk to them", () => {
    const find = { objectAt: at(chair), otherAt: at(guide), notAnsweringAt: () => undefined };
    expect(hoverOnTile(9, 7, pointer, find)).toMatchObject({ actorId: "agt_guide", talk: true });
    expect(hoverOnTile(9, 7, pointer, find)?.label).toContain("Talk to");
    expect(clickOnTile(9, 7, find)).toEqual({ talkTo: "agt_guide" });
  });

  it("a chair nobody stands on offers itself; an asleep resident on one shows its card, a click takes the chair", () => {
    const empty = { objectAt: at(chair), otherAt: () => undefined, notAnsweringAt: () => undefined };
    expect(hoverOnTile(9, 7, pointer, empty)).toMatchObject({
      object: { id: "obj_chair" },
      label: "Sit down",
    });
    expect(clickOnTile(9, 7, empty)).toEqual({ interact: { objectId: "obj_chair", action: "sit" } });
    const asleep = { ...guide, asleep: true } as WireEntity;
    const sleeping = { objectAt: at(chair), otherAt: at(asleep), notAnsweringAt: at(asleep) };
    expect(hoverOnTile(9, 7, pointer, sleeping)).toMatchObject({ actorId: "agt_guide" });
    expect(hoverOnTile(9, 7, pointer, sleeping)?.label).toContain("asleep");
    expect(clickOnTile(9, 7, sleeping)).toEqual({ interact: { objectId: "obj_chair", action: "sit" } });
  });
});
