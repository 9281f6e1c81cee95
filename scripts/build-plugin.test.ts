import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildPlugin,
  declarationImports,
  packageNameOf,
  runtimeEntryPairs,
  undeclaredImports,
} from "./build-plugin.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A throw-away plugin project: package.json plus the given source files. */
async function project(pkg: Record<string, unknown>, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-build-plugin-"));
  dirs.push(dir);
  await writeFile(path.join(dir, "package.json"), JSON.stringify(pkg));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

const entries = { extensions: ["./index.ts"], runtimeExtensions: ["./dist/index.js"] };

describe("runtime entry pairs", () => {
  it("pairs each source entry with its built entry", () => {
    expect(runtimeEntryPairs({ openclaw: entries })).toEqual([
      { source: "./index.ts", output: "./dist/index.js" },
    ]);
  });

  it("refuses a missing or unpaired runtime entry (the gateway would refuse the package)", () => {
    expect(() => runtimeEntryPairs({ openclaw: { extensions: ["./index.ts"] } })).toThrow(/must pair/);
    expect(() => runtimeEntryPairs({})).toThrow(/no openclaw.extensions/);
  });
});

describe("imports an installed plugin can resolve", () => {
  it("names the package of a bare specifier", () => {
    expect(packageNameOf("zod")).toBe("zod");
    expect(packageNameOf("pure-rand/distribution/uniformInt")).toBe("pure-rand");
    expect(packageNameOf("@scope/pkg/sub")).toBe("@scope/pkg");
    expect(packageNameOf("./local.ts")).toBeUndefined();
  });

  it("allows built-ins, dependencies and the host peer; reports everything else", () => {
    const pkg = { dependencies: { zod: "4" }, peerDependencies: { openclaw: ">=2026.9.6" } };
    const imports = ["node:fs", "path", "zod", "openclaw/plugin-sdk/plugin-entry", "phaser", "ajv/dist/2020"];
    expect(undeclaredImports(imports, pkg)).toEqual(["ajv/dist/2020", "phaser"]);
  });

  it("the client's declarations: zod passes; Node's types, a dev package or a type reference do not", () => {
    const pkg = { dependencies: { zod: "4" } };
    const declarations = [
      'import type * as z from "zod";',
      'import { type X } from "../aic/endpoints.ts";',
      'import type {} from "./../world/actions/move-to.ts";',
      'export type K = import("node:crypto").KeyObject;',
      'import type { Static } from "typebox";',
      '/// <reference types="node" />',
    ].join("\n");
    expect(declarationImports(declarations)).toEqual(["zod", "@types/node", "typebox", "@types/node"]);
    expect(undeclaredImports(declarationImports(declarations), pkg)).toEqual(["@types/node", "typebox"]);
  });
});

describe("buildPlugin", () => {
  it("bundles the entry; a module's import.meta.url still locates files beside its source", async () => {
    const dir = await project(
      { type: "module", openclaw: entries },
      {
        "index.ts": 'export { assetsDir, here } from "./src/deep/where.ts";\n',
        "src/deep/where.ts": [
          'import { fileURLToPath } from "node:url";',
          'export const assetsDir: string = fileURLToPath(new URL("../../assets", import.meta.url));',
          "export const here: string = import.meta.url;",
        ].join("\n"),
      },
    );
    const [built] = await buildPlugin(dir);
    expect(built).toMatchObject({ source: "./index.ts", output: "./dist/index.js" });
    const mod = (await import(pathToFileURL(path.join(dir, "dist", "index.js")).href)) as {
      assetsDir: string;
      here: string;
    };
    expect(mod.assetsDir).toBe(path.join(dir, "assets"));
    expect(mod.here).toBe(pathToFileURL(path.join(dir, "src", "deep", "where.ts")).href);
  });

  it("carries the packages it uses inside (a CommonJS one requiring a built-in runs); an optional package one tries to require stays out, so does the host", async () => {
    const dir = await project(
      {
        type: "module",
        openclaw: entries,
        devDependencies: { dep: "1" },
        peerDependencies: { openclaw: ">=2026.9.6" },
      },
      {
        "index.ts": [
          'import dep from "dep";',
          "export const joined: string = dep.joined;",
          "export const native: boolean = dep.native;",
          'export const host = () => import("openclaw/plugin-sdk/plugin-entry");',
        ].join("\n"),
        "node_modules/dep/package.json": JSON.stringify({ name: "dep", main: "index.js" }),
        "node_modules/dep/index.js": [
          'const path = require("node:path");',
          "let native = true;",
          'try { require("optional-native"); } catch { native = false; }',
          'module.exports = { joined: path.join("a", "b"), native };',
        ].join("\n"),
      },
    );
    await buildPlugin(dir);
    // The package is gone: what runs is what the bundle carries.
    await rm(path.join(dir, "node_modules"), { recursive: true });
    const mod = (await import(pathToFileURL(path.join(dir, "dist", "index.js")).href)) as {
      joined: string;
      native: boolean;
    };
    expect([mod.joined, mod.native]).toEqual([path.join("a", "b"), false]);
    const text = await readFile(path.join(dir, "dist", "index.js"), "utf8");
    expect(text).toContain('"openclaw/plugin-sdk/plugin-entry"');
  });

  it("a library entry keeps its packages external, and fails naming one that dependencies do not list", async () => {
    const dir = await project(
      { type: "module", openclaw: entries, dependencies: { zod: "4" }, devDependencies: { phaser: "4" } },
      {
        "index.ts": "export const version = 1;\n",
        "lib.ts": 'import "zod";\nimport Phaser from "phaser";\nexport const p = Phaser;\n',
      },
    );
    const library = { source: "./lib.ts", output: "./dist/lib.js", bundled: false };
    await expect(buildPlugin(dir, [library])).rejects.toThrow(
      /imports phaser, which package.json "dependencies"/,
    );
  });

  it("rebuilds in place: the second build replaces the first", async () => {
    const dir = await project(
      { type: "module", openclaw: entries },
      { "index.ts": "export const version = 1;\n" },
    );
    await buildPlugin(dir);
    await writeFile(path.join(dir, "index.ts"), "export const version = 2;\n");
    await buildPlugin(dir);
    expect(await readFile(path.join(dir, "dist", "index.js"), "utf8")).toContain("version = 2");
  });
});
