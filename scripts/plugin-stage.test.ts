import { existsSync, lstatSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packedFiles, stagePlugin } from "./lib/plugin-stage.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A small plugin project: what npm packs is decided by its package.json `files`. */
async function project(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-stage-"));
  dirs.push(dir);
  const files: Record<string, string> = {
    "package.json": JSON.stringify({
      name: "stage-probe",
      version: "1.0.0",
      type: "module",
      files: ["dist/", "assets/", "openclaw.plugin.json", "!assets/**/*.map"],
      openclaw: { extensions: ["./index.ts"], runtimeExtensions: ["./dist/index.js"] },
    }),
    "openclaw.plugin.json": "{}",
    "index.ts": 'export const hello: string = "staged";\n',
    "assets/app.js": "console.log(1)\n",
    "assets/app.js.map": "{}",
    "notes/private.md": "not shipped\n",
    // Another built entry (e.g. a forked child): whatever the build writes under dist/ ships.
    "dist/child.js": "export {};\n",
    "node_modules/dep/package.json": '{"name":"dep"}',
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

describe("staging the plugin as an installed plugin", () => {
  it("holds exactly what npm pack ships (the whole dist/), with node_modules linked", async () => {
    const dir = await project();
    const target = path.join(await mkdtemp(path.join(os.tmpdir(), "ocw-stage-target-")), "plugin");
    dirs.push(path.dirname(target));
    const staged = await stagePlugin(target, dir);
    expect(staged.files).toEqual(await packedFiles(dir));
    expect(staged.files).toEqual([
      "assets/app.js",
      "dist/child.js",
      "dist/index.js",
      "openclaw.plugin.json",
      "package.json",
    ]);
    for (const file of staged.files) expect(existsSync(path.join(target, file)), file).toBe(true);
    expect(existsSync(path.join(target, "notes"))).toBe(false);
    expect(existsSync(path.join(target, "index.ts"))).toBe(false);
    expect(lstatSync(path.join(target, "node_modules")).isSymbolicLink()).toBe(true);
    expect(await realpath(path.join(target, "node_modules"))).toBe(
      await realpath(path.join(dir, "node_modules")),
    );
    const mod = (await import(path.join(target, "dist", "index.js"))) as { hello: string };
    expect(mod.hello).toBe("staged");
  });

  it("restaging replaces the folder: what the project no longer ships is gone, edits arrive", async () => {
    const dir = await project();
    const target = path.join(await mkdtemp(path.join(os.tmpdir(), "ocw-stage-target-")), "plugin");
    dirs.push(path.dirname(target));
    await stagePlugin(target, dir);
    await rm(path.join(dir, "dist", "child.js"));
    await writeFile(path.join(dir, "assets", "app.js"), "console.log(2)\n");
    await stagePlugin(target, dir);
    expect(existsSync(path.join(target, "dist", "child.js"))).toBe(false);
    expect(await readFile(path.join(target, "assets", "app.js"), "utf8")).toBe("console.log(2)\n");
    // Nothing is left beside it from the swap.
    expect(await readdir(path.dirname(target))).toEqual(["plugin"]);
  });
});
