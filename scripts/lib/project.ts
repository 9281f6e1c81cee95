import { fileURLToPath } from "node:url";

/** The checkout: where package.json, the sources and node_modules are. */
export const PROJECT_DIR = fileURLToPath(new URL("../..", import.meta.url));
