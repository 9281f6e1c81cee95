// Writes the AIC v0.1 documents generated from src/aic/schemas.ts:
//   docs/aic/v0.1/aic-schema.json, events-schema.json, openapi.json
// `--check` exits 1 when a file on disk differs (the unit test does the same).
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildAicSchema, buildEventsSchema, buildOpenApi, serializeDocument } from "../src/aic/documents.ts";

export const GENERATED_DOCUMENTS = {
  "aic-schema.json": buildAicSchema,
  "events-schema.json": buildEventsSchema,
  "openapi.json": buildOpenApi,
} as const;

export const DOCS_DIR = fileURLToPath(new URL("../docs/aic/v0.1/", import.meta.url));

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
  if (stale > 0) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
