// The layer direction of the repository: world <- runtime <- aic/config <- adapters <- plugin.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  buildImportGraph,
  cycles,
  describeFolders,
  type ImportGraph,
  layerViolations,
  relativeImports,
} from "./lib/import-graph.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("import graph", () => {
  const graph = buildImportGraph(root);

  it("reads the production sources of every layer", () => {
    const folders = new Set([...graph.files.keys()].map((f) => f.split("/").slice(0, 2).join("/")));
    for (const folder of ["src/world", "src/runtime", "src/aic", "src/http", "src/tools", "src/plugin"]) {
      expect(folders).toContain(folder);
    }
    expect([...graph.files.keys()].some((f) => f.endsWith(".test.ts"))).toBe(false);
  });

  it("has no folder cycle", () => {
    const folderEdges = new Map([...graph.folders].map(([from, to]) => [from, [...to.keys()]]));
    expect(cycles(folderEdges), describeFolders(graph)).toEqual([]);
  });

  it("has no file cycle", () => {
    expect(cycles(graph.files)).toEqual([]);
  });

  it("every import goes down the layers", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it("the world imports nothing outside itself; adapters reach it only through src/aic", () => {
    expect(graph.folders.get("src/world")).toBeUndefined();
    for (const adapter of ["src/http", "src/tools", "src/hooks"]) {
      expect(graph.folders.get(adapter)?.has("src/world"), adapter).toBeFalsy();
      expect(graph.folders.get(adapter)?.has("src/runtime"), adapter).toBeFalsy();
    }
    expect(graph.folders.get("src/hooks")?.has("src/aic")).toBeFalsy();
  });
});

describe("the checks catch what they are for", () => {
  it("finds a cycle of two and of three, not a chain", () => {
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b"]]);
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
        ]),
      ),
    ).toEqual([]);
  });

  it("flags an upward import, a sideways one between adapters, and an adapter reaching past the contract", () => {
    const graph: ImportGraph = {
      files: new Map([
        ["src/runtime/host.ts", new Set(["src/aic/service.ts"])],
        ["src/tools/backend.ts", new Set(["src/http/routes.ts"])],
        ["src/aic/service.ts", new Set(["src/runtime/world-runtime.ts"])],
        ["src/http/humans/view.ts", new Set(["src/world/types.ts", "src/aic/reads.ts"])],
      ]),
      folders: new Map(),
    };
    expect(layerViolations(graph)).toEqual([
      "src/runtime/host.ts -> src/aic/service.ts (src/runtime may not import src/aic)",
      "src/tools/backend.ts -> src/http/routes.ts (src/tools may not import src/http)",
      "src/http/humans/view.ts -> src/world/types.ts (src/http reaches the world only through src/aic)",
    ]);
  });

  it("reads static, side-effect, re-export and dynamic imports", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'import "./side.ts";',
      'export { c } from "./c.ts";',
      'const d = await import("./d.ts");',
      'import fs from "node:fs";',
    ].join("\n");
    expect(relativeImports(text)).toEqual(["./a.ts", "../b.ts", "./side.ts", "./c.ts", "./d.ts"]);
  });
});
