import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { actionShapes } from "./lib/action-shapes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("action shapes", () => {
  it("a kind with doors is written in its own file only; the older kinds in no more files than before", () => {
    const shapes = actionShapes(root);
    expect(shapes.problems).toEqual([]);
    expect(shapes.files.get("emote")).toEqual(["src/world/actions/emote.ts"]);
  });
});
