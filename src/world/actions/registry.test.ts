import { describe, expect, it } from "vitest";
import { fieldsProblem } from "./action.ts";
import { DOOR_ACTIONS, PAGE_OFFERS } from "./registry.ts";

describe("the action kinds with doors", () => {
  it.each(DOOR_ACTIONS.map(({ kind, doors }) => [kind, doors] as const))(
    "%s: its own example is valid by its fields (the fuzz and contract tests start from it)",
    (_kind, doors) => {
      expect(fieldsProblem(doors.fields, doors.example)).toBeUndefined();
    },
  );

  it("the page offers only kinds people send, each menu picks one of the kind's fields, keys apart", () => {
    const byKind = new Map(DOOR_ACTIONS.map(({ kind, doors }) => [kind as string, doors]));
    for (const offer of PAGE_OFFERS) {
      const doors = byKind.get(offer.kind);
      expect(doors?.humans, offer.kind).toBe(true);
      if (!offer.choices) continue;
      expect(Object.keys(doors?.fields ?? {}), offer.kind).toContain(offer.choices.field);
      for (const value of Object.keys(offer.choices.labels))
        expect(
          fieldsProblem(doors!.fields, { ...doors!.example, [offer.choices.field]: value }),
          `${offer.kind} ${value}`,
        ).toBeUndefined();
    }
    const keys = PAGE_OFFERS.flatMap((o) => (o.key ? [o.key.toLowerCase()] : []));
    expect(new Set(keys).size).toBe(keys.length);
  });
});
