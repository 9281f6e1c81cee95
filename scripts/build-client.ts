// Builds the web client into web/dist with esbuild: the JS (Phaser included; a dynamic import() becomes
// a chunk of its own) and the CSS, each named by its content (`assets/app-<hash>.js`), and index.html
// pointing at the entries. A browser may keep a
// named asset for a year without asking again (a new build is a new name), while index.html is always
// revalidated (src/http/humans/static-routes.ts). Every text file is also written compressed, brotli
// (`.br`) and gzip (`.gz`), at the highest levels, so the gateway sends the smallest form a browser
// accepts without compressing anything per request. No network; a few seconds (brotli at level 11).
import { randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { build } from "esbuild";
import { PAGE_OFFERS } from "../src/world/actions/registry.ts";
import { PROJECT_DIR } from "./lib/project.ts";

const src = path.join(PROJECT_DIR, "web", "client");
const target = path.join(PROJECT_DIR, "web", "dist");
// Built beside web/dist and renamed into place: `npm pack` (its prepack builds) runs in the install
// tests while other tests stage the plugin from web/dist, which must never be seen half-written.
const suffix = randomBytes(4).toString("hex");
const dist = `${target}.new-${suffix}`;
const assets = path.join(dist, "assets");
// A failed build leaves no half-built folder behind (after the rename below there is none to remove).
process.on("exit", () => rmSync(dist, { recursive: true, force: true }));
/** Compressing smaller files saves less than the extra round of negotiation costs to explain. */
const MIN_COMPRESS_BYTES = 1024;

const started = Date.now();
const result = await build({
  entryPoints: [
    { in: path.join(src, "main.ts"), out: "app" },
    { in: path.join(src, "app.css"), out: "app" },
    // The operator's replay page: the same scene, fed by re-simulated frames.
    { in: path.join(src, "replay.ts"), out: "replay" },
    { in: path.join(src, "replay.css"), out: "replay" },
    // The follow page: the same scene, the camera on one agent, fed by the follow API's stream.
    { in: path.join(src, "follow.ts"), out: "follow" },
    { in: path.join(src, "follow.css"), out: "follow" },
  ],
  absWorkingDir: PROJECT_DIR,
  outdir: assets,
  entryNames: "[name]-[hash]",
  chunkNames: "[name]-[hash]",
  splitting: true,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox120", "safari17"],
  minify: true,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
  metafile: true,
  // The page's action controls as data: the registry imports zod, which the page must not bundle.
  define: { PAGE_OFFERS: JSON.stringify(PAGE_OFFERS) },
});

/** The built file of each entry (web/client/<name>), as the pages name it (/world/assets/<file>). */
const built = new Map<string, string>();
for (const [output, meta] of Object.entries(result.metafile.outputs)) {
  if (!meta.entryPoint) continue;
  built.set(path.basename(meta.entryPoint), path.basename(output));
}
/** Each page and its entries: the reference it holds (`/world/assets/<out>.js|css`) and the source. */
const PAGES = [
  {
    page: "index.html",
    entries: [
      ["app.js", "main.ts"],
      ["app.css", "app.css"],
    ],
  },
  {
    page: "replay.html",
    entries: [
      ["replay.js", "replay.ts"],
      ["replay.css", "replay.css"],
    ],
  },
  {
    page: "follow.html",
    entries: [
      ["follow.js", "follow.ts"],
      ["follow.css", "follow.css"],
    ],
  },
] as const;
for (const { page, entries } of PAGES) {
  let html = await readFile(path.join(src, page), "utf8");
  for (const [name, source] of entries) {
    const reference = `/world/assets/${name}`;
    const file = built.get(source);
    if (!file || !html.includes(`"${reference}"`)) {
      throw new Error(
        `web/client/${page} must reference ${reference} (the build names the file by its content)`,
      );
    }
    html = html.replace(`"${reference}"`, `"/world/assets/${file}"`);
  }
  await writeFile(path.join(dist, page), html);
}

const compressed = [
  ...PAGES.map(({ page }) => path.join(dist, page)),
  ...Object.keys(result.metafile.outputs)
    .filter((output) => !output.endsWith(".map"))
    .map((output) => path.resolve(PROJECT_DIR, output)),
];
let savedTo = 0;
let total = 0;
await Promise.all(
  compressed.map(async (file) => {
    const bytes = await readFile(file);
    if (bytes.byteLength < MIN_COMPRESS_BYTES) return;
    const [br, gz] = await Promise.all([
      promisify(brotliCompress)(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
        },
      }),
      promisify(gzip)(bytes, { level: constants.Z_BEST_COMPRESSION }),
    ]);
    await writeFile(`${file}.br`, br);
    await writeFile(`${file}.gz`, gz);
    total += bytes.byteLength;
    savedTo += br.byteLength;
  }),
);
const old = `${target}.old-${suffix}`;
if (existsSync(target)) await rename(target, old);
await rename(dist, target);
await rm(old, { recursive: true, force: true });
console.log(
  `web client built into ${path.relative(process.cwd(), target) || target} in ${Date.now() - started} ms ` +
    `(${[...built.values()].join(", ")}; ${(total / 1024).toFixed(0)} KiB, ${(savedTo / 1024).toFixed(0)} KiB as brotli)`,
);
