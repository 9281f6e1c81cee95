// The object types table in worlds/README.md is the registry's, written by gen:schemas: it names every
// type with its properties and actions, and the README on disk is current.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { objectTypes } from "../src/world/objects/object-registry.ts";
import { WORLDS_README } from "./gen-schemas.ts";
import { OBJECTS_BEGIN, objectTypesTable, withObjectTypes } from "./lib/world-objects-doc.ts";

describe("the object types table", () => {
  it("lists each registered type, its properties with their kinds, and its actions", () => {
    const lines = objectTypesTable().split("\n");
    for (const handler of objectTypes.values()) {
      const row = lines.find((l) => l.startsWith(`| \`${handler.objectType}\` `));
      expect(row, handler.objectType).toBeDefined();
      for (const [prop, kind] of Object.entries({ ...handler.props, ...handler.optionalProps }))
        expect(row).toContain(`\`${prop}\` (${kind})`);
      for (const action of handler.actions) expect(row).toContain(`\`${action}\``);
    }
    expect(lines).toHaveLength(objectTypes.size + 2);
  });

  it("worlds/README.md holds the current table (npm run gen:schemas writes it)", () => {
    const readme = readFileSync(WORLDS_README, "utf8");
    expect(withObjectTypes(readme)).toBe(readme);
  });

  it("refuses a README without its markers rather than losing the table", () => {
    expect(() => withObjectTypes("# no markers")).toThrow(/lacks the markers/);
    expect(() => withObjectTypes(OBJECTS_BEGIN)).toThrow(/lacks the markers/);
  });
});
