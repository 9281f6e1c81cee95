// Builds the web client into web/dist with esbuild: one JS bundle (Phaser included), the CSS and
// index.html. No network, a second or two.
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";
import { PROJECT_DIR } from "./lib/gateway.ts";

const src = path.join(PROJECT_DIR, "web", "client");
const dist = path.join(PROJECT_DIR, "web", "dist");
const started = Date.now();
await rm(dist, { recursive: true, force: true });
await mkdir(path.join(dist, "assets"), { recursive: true });
await build({
  entryPoints: [path.join(src, "main.ts")],
  outfile: path.join(dist, "assets", "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["chrome120", "firefox120", "safari17"],
  minify: true,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning",
});
await copyFile(path.join(src, "app.css"), path.join(dist, "assets", "app.css"));
await copyFile(path.join(src, "index.html"), path.join(dist, "index.html"));
console.log(
  `web client built into ${path.relative(process.cwd(), dist) || dist} in ${Date.now() - started} ms`,
);
