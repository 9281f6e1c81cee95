// Builds the plugin's JavaScript runtime entries: every `openclaw.extensions` source entry in
// package.json becomes the paired `openclaw.runtimeExtensions` file (./index.ts -> ./dist/index.js).
// The gateway loads that built file natively (installed packages must ship compiled JavaScript, and
// with `runtimeExtensions` declared a working-tree load through `plugins.load.paths` uses it too), so
// `npm start`, the e2e suite and `npm pack` all build it first. The bundle follows whatever the entry
// imports: no list of source files to keep in sync. The plugin's entries carry the packages they use
// inside them (devDependencies: an installed plugin needs none); `openclaw/*` resolves to the host
// gateway. Why: a gateway copies a plugin's package and every package its package.json declares into a
// folder per plugin generation and deletes it when a reload retires that generation, within the 5 s a
// retirement gets. With nine runtime packages declared that was 3,162 files (typebox, zod,
// opentelemetry...); on a busy machine the deletion overran the 5 s, the gateway retired the plugin with
// it pending and started none again (the hot-reload test, "1 still-running call"). `dependencies`
// keeps what the client library (`openclawworld/client`) imports, external there: a user's program
// installs them, and its types name zod's.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { runCommand } from "./lib/run-command.ts";

const PROJECT_DIR = path.resolve(import.meta.dirname, "..");

interface PackageJson {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  openclaw?: { extensions?: string[]; runtimeExtensions?: string[] };
}

export interface BuiltEntry {
  source: string;
  output: string;
  bytes: number;
}

/** The source -> runtime entry pairs declared in package.json (paths relative to the project). */
export function runtimeEntryPairs(pkg: PackageJson): { source: string; output: string }[] {
  const sources = pkg.openclaw?.extensions ?? [];
  const outputs = pkg.openclaw?.runtimeExtensions ?? [];
  if (sources.length === 0) throw new Error("package.json declares no openclaw.extensions");
  if (outputs.length !== sources.length) {
    throw new Error(
      `package.json openclaw.runtimeExtensions (${outputs.length}) must pair with openclaw.extensions (${sources.length})`,
    );
  }
  return sources.map((source, i) => ({ source, output: outputs[i] as string }));
}

/** `lodash/fp` -> `lodash`, `@scope/pkg/sub` -> `@scope/pkg`; undefined for relative paths. */
export function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

const BUILTINS = new Set(builtinModules);

/** Bare imports the built entry may keep: Node built-ins, `dependencies`, and the host peer. */
export function undeclaredImports(imports: Iterable<string>, pkg: PackageJson): string[] {
  const allowed = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
  ]);
  const bad = new Set<string>();
  for (const specifier of imports) {
    if (specifier.startsWith("node:") || BUILTINS.has(specifier)) continue;
    const name = packageNameOf(specifier);
    if (name && !allowed.has(name)) bad.add(specifier);
  }
  return [...bad].sort();
}

/** Bare imports: in a `bundled` entry every package but the host peer is carried inside; elsewhere
 * all stay external (and the undeclared check names those `dependencies` lacks). An import a carried
 * package makes of a package that is not installed (ws's optional bufferutil, required in a try)
 * stays external, noted in `optional`: the package handles its absence itself. */
export function dependencyPlugin(pkg: PackageJson, bundled: boolean, optional: Set<string>): Plugin {
  const peers = new Set(Object.keys(pkg.peerDependencies ?? {}));
  const insideAPackage = (file: string) => file.includes(`${path.sep}node_modules${path.sep}`);
  return {
    name: "dependencies",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData === "dependencies" || args.path.startsWith("node:")) return undefined;
        if (BUILTINS.has(args.path)) return { external: true };
        if (!bundled || peers.has(packageNameOf(args.path) ?? args.path)) return { external: true };
        if (!insideAPackage(args.importer)) return undefined;
        const found = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: "dependencies",
        });
        if (found.errors.length === 0) return found;
        optional.add(args.path);
        return { path: args.path, external: true };
      });
    },
  };
}

/** A bundled CommonJS package (ws, prom-client) calls require() for Node's built-ins, which an ES
 * module has not: the bundle makes one. */
const REQUIRE_SHIM =
  'import { createRequire as __ocwCreateRequire } from "node:module";\nconst require = __ocwCreateRequire(import.meta.url);';

/**
 * Bundling puts every module into one file, so `import.meta.url` would name the bundle, not the
 * module it was written in; modules locate shipped assets relative to themselves (the bundled world,
 * the web client). Rewrite it to the module's own source location, relative to the bundle, so those
 * paths resolve in the package exactly as they do in the working tree (the source file need not ship;
 * only the URL arithmetic uses it). `import.meta.dirname`/`filename` are refused rather than guessed.
 */
export function sourceLocationPlugin(outputFile: string): Plugin {
  return {
    name: "source-import-meta-url",
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const code = await readFile(args.path, "utf8");
        if (/\bimport\.meta\.(dirname|filename)\b/.test(code)) {
          return {
            errors: [
              {
                text: "import.meta.dirname/filename cannot be bundled; use fileURLToPath(new URL(..., import.meta.url))",
              },
            ],
          };
        }
        const relative = path.relative(path.dirname(outputFile), args.path).split(path.sep).join("/");
        const contents = code.replace(
          /\bimport\.meta\.url\b/g,
          `new URL(${JSON.stringify(relative)}, import.meta.url).href`,
        );
        return { contents, loader: "ts" };
      });
    },
  };
}

/** Modules the plugin forks as processes of their own: built beside the entry, which finds them by
 * these names (src/plugin/fanout/fanout-process.ts). */
export const FORKED_ENTRIES = [
  { source: "./src/plugin/fanout/child-main.ts", output: "./dist/fanout-child.js", bundled: true },
];

/** Modules the package exports to programs of their own (package.json "exports"): the AIC client a
 * user's agent imports as `openclawworld/client` (docs/client.md). */
export const LIBRARY_ENTRIES = [
  { source: "./src/client/index.ts", output: "./dist/client.js", bundled: false },
];

export async function buildPlugin(
  projectDir = PROJECT_DIR,
  forked: { source: string; output: string; bundled: boolean }[] = path.resolve(projectDir) === PROJECT_DIR
    ? [...FORKED_ENTRIES, ...LIBRARY_ENTRIES]
    : [],
): Promise<BuiltEntry[]> {
  const pkg = JSON.parse(readFileSync(path.join(projectDir, "package.json"), "utf8")) as PackageJson;
  const built: BuiltEntry[] = [];
  const entries = [...runtimeEntryPairs(pkg).map((pair) => ({ ...pair, bundled: true })), ...forked];
  for (const pair of entries) {
    const outfile = path.resolve(projectDir, pair.output);
    const optional = new Set<string>();
    const result = await build({
      entryPoints: [path.resolve(projectDir, pair.source)],
      outfile,
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: "node",
      target: "node24.16",
      legalComments: "none",
      logLevel: "silent",
      banner: {
        js: `// Built from ${pair.source} by scripts/build-plugin.ts. Do not edit.${pair.bundled ? `\n${REQUIRE_SHIM}` : ""}`,
      },
      plugins: [dependencyPlugin(pkg, pair.bundled, optional), sourceLocationPlugin(outfile)],
    });
    const imports = Object.values(result.metafile.outputs).flatMap((out) =>
      out.imports.filter((i) => i.external && !optional.has(i.path)).map((i) => i.path),
    );
    const undeclared = undeclaredImports(imports, pkg);
    if (undeclared.length > 0) {
      throw new Error(
        `${pair.output} imports ${undeclared.join(", ")}, which package.json "dependencies" does not list; ` +
          "an installed plugin gets only its dependencies (devDependencies are never installed)",
      );
    }
    const file = result.outputFiles[0];
    if (!file) throw new Error(`esbuild produced no output for ${pair.source}`);
    // Write then rename: a gateway starting meanwhile sees the old file or the new one, never half.
    await mkdir(path.dirname(outfile), { recursive: true });
    const temp = `${outfile}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      await writeFile(temp, file.contents);
      await rename(temp, outfile);
    } finally {
      await rm(temp, { force: true });
    }
    built.push({ source: pair.source, output: pair.output, bytes: file.contents.byteLength });
  }
  return built;
}

/** Where the library entries' declarations go (tsconfig.client.json), and the one package.json
 * "exports" names as `openclawworld/client`'s types. */
export const DECLARATIONS_DIR = "dist/types";
export const CLIENT_DECLARATIONS = `${DECLARATIONS_DIR}/client/index.d.ts`;

/** What the emitted declarations import from outside themselves: bare specifiers, and the type
 * packages `/// <reference types>` pulls in (as `@types/<name>`). A Node built-in's types are
 * @types/node's, which a user's project need not have. */
export function declarationImports(text: string): string[] {
  const bare = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["']([^"'.][^"']*)["']/g)].map((m) => {
    const specifier = m[1] as string;
    return specifier.startsWith("node:") || BUILTINS.has(specifier) ? "@types/node" : specifier;
  });
  const types = [...text.matchAll(/\/\/\/\s*<reference\s+types=["']([^"']+)["']/g)].map(
    (m) => `@types/${m[1]}`,
  );
  return [...bare, ...types];
}

/** A declaration file nobody imports is never read by the user's compiler, so the module
 * augmentations in it (an action kind adding its fields to ActionInputs) would be lost and the
 * endpoint types with them: the entry imports every file that augments. */
async function importAugmentations(dir: string, entry: string): Promise<void> {
  const files = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith(".d.ts"));
  const lines: string[] = [];
  for (const file of files.sort()) {
    if (!/^declare module /m.test(await readFile(path.join(dir, file), "utf8"))) continue;
    const from = path
      .relative(path.dirname(path.join(dir, entry)), path.join(dir, file))
      .split(path.sep)
      .join("/");
    const specifier = (from.startsWith(".") ? from : `./${from}`).replace(/\.d\.ts$/, ".ts");
    lines.push(`import type {} from "${specifier}";`);
  }
  const entryFile = path.join(dir, entry);
  await writeFile(entryFile, `${await readFile(entryFile, "utf8")}${lines.join("\n")}\n`);
}

/** `openclawworld/client`'s types: tsc emits the declarations of what the client reaches (the
 * contract's zod schemas and what they are built from), so a user's program is typed by the same
 * schemas as the server. Needs only zod, a dependency. Written beside, then renamed into place. */
export async function buildDeclarations(projectDir = PROJECT_DIR): Promise<string> {
  const out = path.join(projectDir, DECLARATIONS_DIR);
  const temp = `${out}.${randomBytes(4).toString("hex")}.tmp`;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  try {
    const run = await runCommand(
      process.execPath,
      [tsc, "-p", "tsconfig.client.json", "--outDir", temp],
      projectDir,
    );
    if (run.code !== 0)
      throw new Error(`tsc -p tsconfig.client.json exited ${run.code}\n${run.stdout}${run.stderr}`);
    // The user's compiler gets the package's dependencies only, as the bundle's imports do.
    const pkg = JSON.parse(readFileSync(path.join(projectDir, "package.json"), "utf8")) as PackageJson;
    const files = (await readdir(temp, { recursive: true })).filter((f) => f.endsWith(".d.ts"));
    const imports = (await Promise.all(files.map((f) => readFile(path.join(temp, f), "utf8")))).flatMap(
      declarationImports,
    );
    const undeclared = undeclaredImports(imports, pkg);
    if (undeclared.length > 0)
      throw new Error(
        `the client's declarations need ${undeclared.join(", ")}, which package.json "dependencies" does not list`,
      );
    const entry = path.relative(DECLARATIONS_DIR, CLIENT_DECLARATIONS);
    await importAugmentations(temp, entry);
    await rm(out, { recursive: true, force: true });
    await rename(temp, out);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return CLIENT_DECLARATIONS;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  try {
    const built = await buildPlugin();
    for (const entry of built) {
      console.log(
        `plugin entry ${entry.source} -> ${entry.output} (${(entry.bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`,
      );
    }
    // Only at pack time (npm run build): tsc takes seconds, and nothing in the tree reads them.
    if (process.argv.includes("--declarations")) {
      console.log(`client declarations -> ${await buildDeclarations()} in ${Date.now() - started} ms`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
