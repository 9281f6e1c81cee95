// The bundled maps are generated: the committed files must be exactly what the generator writes, so a
// change to the generator (or a hand edit of a map) cannot ship half done.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lobbyMaps, MAPS_DIR } from "./gen-lobby-maps.ts";

describe("gen-lobby-maps", () => {
  it("the committed maps are what the generator writes (run `npx node scripts/gen-lobby-maps.ts`)", () => {
    for (const [name, json] of Object.entries(lobbyMaps())) {
      expect(readFileSync(join(MAPS_DIR, name), "utf8"), name).toBe(json);
    }
  });

  it("is deterministic: two runs give the same bytes", () => {
    expect(lobbyMaps()).toEqual(lobbyMaps());
  });
});
