// Writes the documents generated from the zod schemas:
//   docs/aic/v0.1/aic-schema.json, events-schema.json, openapi.json (from src/aic/schemas.ts)
//   openclaw.plugin.json's configSchema (from src/config/config.ts)
//   worlds/README.md's table of object types (from src/world/objects, scripts/lib/world-objects-doc.ts)
// `--check` exits 1 when a file on disk differs (the unit tests do the same).
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildAicSchema, buildEventsSchema, buildOpenApi, serializeDocument } from "../src/aic/documents.ts";
import { ALL_TOOLS, pluginConfigJsonSchema } from "../src/config/config.ts";
import { toolNameOf } from "../src/world/actions/action.ts";
import { DOOR_ACTIONS } from "../src/world/actions/registry.ts";
import { withObjectTypes } from "./lib/world-objects-doc.ts";

export const GENERATED_DOCUMENTS = {
  "aic-schema.json": buildAicSchema,
  "events-schema.json": buildEventsSchema,
  "openapi.json": buildOpenApi,
} as const;

export const DOCS_DIR = fileURLToPath(new URL("../docs/aic/v0.1/", import.meta.url));
export const MANIFEST_FILE = fileURLToPath(new URL("../openclaw.plugin.json", import.meta.url));
export const WORLDS_README = fileURLToPath(new URL("../worlds/README.md", import.meta.url));

/** The manifest with what the code says written in: its configSchema, and the tool list with the
 * metadata of each action kind's tool (ocw_<kind>, src/world/actions: ActionDoors). */
export function generatedManifest(manifestText: string): Record<string, unknown> {
  const manifest = JSON.parse(manifestText) as Record<string, unknown> & {
    contracts?: { tools?: string[] };
    toolMetadata?: Record<string, unknown>;
  };
  manifest.configSchema = pluginConfigJsonSchema();
  manifest.contracts = { ...manifest.contracts, tools: [...ALL_TOOLS] };
  const metadata = { ...manifest.toolMetadata };
  for (const { kind } of DOOR_ACTIONS)
    metadata[toolNameOf(kind)] = { optional: true, sideEffecting: true, replaySafe: true };
  manifest.toolMetadata = metadata;
  return manifest;
}

/** Whether the manifest's generated parts (configSchema, tools) are what the code says. */
export function manifestConfigIsCurrent(manifestText: string): boolean {
  return JSON.stringify(JSON.parse(manifestText)) === JSON.stringify(generatedManifest(manifestText));
}

async function main(): Promise<void> {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [file, build] of Object.entries(GENERATED_DOCUMENTS)) {
    const path = `${DOCS_DIR}${file}`;
    const text = serializeDocument(build());
    const current = await readFile(path, "utf8").catch(() => "");
    if (current === text) continue;
    if (check) {
      stale += 1;
      console.error(`stale: docs/aic/v0.1/${file} (run npm run gen:schemas)`);
    } else {
      await writeFile(path, text);
      console.log(`wrote docs/aic/v0.1/${file}`);
    }
  }
  const manifestText = await readFile(MANIFEST_FILE, "utf8");
  if (!manifestConfigIsCurrent(manifestText)) {
    if (check) {
      stale += 1;
      console.error("stale: openclaw.plugin.json configSchema or tools (run npm run gen:schemas)");
    } else {
      const manifest = generatedManifest(manifestText);
      await writeFile(MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`);
      // The repository's formatter owns the file's layout (arrays on one line where they fit).
      execFileSync(
        fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url)),
        ["format", "--write", MANIFEST_FILE],
        {
          stdio: "ignore",
        },
      );
      console.log("wrote openclaw.plugin.json configSchema");
    }
  }
  const readme = await readFile(WORLDS_README, "utf8");
  const current = withObjectTypes(readme);
  if (current !== readme) {
    if (check) {
      stale += 1;
      console.error("stale: worlds/README.md object types (run npm run gen:schemas)");
    } else {
      await writeFile(WORLDS_README, current);
      console.log("wrote worlds/README.md object types");
    }
  }
  if (stale > 0) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
