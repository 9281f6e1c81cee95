// The repository's import graph (production sources only: tests may assemble several layers) and
// the layer rules it must keep. `scripts/check-imports.ts` prints it; `import-graph.test.ts` holds it.
//
// Layers, lowest first. A module imports its own folder or a strictly lower layer, never a layer of
// the same rank (adapters do not import each other) and never a higher one:
//   world (pure) <- runtime (tick host, persistence) <- aic (the contract), config, cluster (rooms
//   across gateways: leases and the shared log, under the wiring) <- client (the AIC client over
//   HTTP, typed from the contract) <- adapters: http, tools, hooks <- plugin (wiring), conformance
//   (a client, may host a web surface in-process), web (client) <- index.ts
// The adapters import only the contract and the config (ADAPTER_REACH): the world and the tick host
// are below the contract, and an adapter that read them would be a second door.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const LAYERS: Record<string, number> = {
  "src/world": 0,
  "src/runtime": 1,
  "src/aic": 2,
  "src/config": 2,
  "src/cluster": 2,
  // The AIC client over HTTP (exported as openclawworld/client): above the contract it is typed
  // from, below the remote tools and the conformance suite that use it.
  "src/client": 2.5,
  "src/http": 3,
  "src/tools": 3,
  "src/hooks": 3,
  "src/residents": 3,
  conformance: 4,
  "src/plugin": 4,
  "web/client": 4,
  "index.ts": 5,
};

/** The adapters reach the world only through the contract (reads included): besides their own
 * folder they import these layers and nothing lower. */
export const ADAPTER_REACH: Record<string, readonly string[]> = {
  "src/http": ["src/aic", "src/config"],
  "src/tools": ["src/aic", "src/config", "src/client"],
  "src/hooks": ["src/config"],
  "src/residents": ["src/aic", "src/config"],
};

const ROOTS = ["index.ts", "src", "conformance", "web/client"];

export interface ImportGraph {
  /** file -> files it imports (repo-relative, production files only). */
  files: Map<string, Set<string>>;
  /** folder -> folder -> number of imports. A folder is a layer (`src/http` with `src/http/humans`);
   * inside a layer only file cycles count (src/world/objects is the world's own plug-in point). */
  folders: Map<string, Map<string, number>>;
}

function sources(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (rel.endsWith(".ts")) return [rel];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sources(root, child);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")
      ? [child]
      : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Relative specifiers a file imports (package imports are not part of the layer graph). */
export function relativeImports(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (spec?.startsWith(".")) out.push(spec);
  }
  return out;
}

/** The layer folder a file belongs to (files outside the layer map count as their own directory). */
export function folderOf(file: string): string {
  return layerOf(file) ?? path.posix.dirname(file);
}

/** The layer a file or folder belongs to: the longest LAYERS key it sits under. */
export function layerOf(fileOrFolder: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(LAYERS)) {
    if (fileOrFolder === key || fileOrFolder.startsWith(`${key}/`)) {
      if (!best || key.length > best.length) best = key;
    }
  }
  return best;
}

export function buildImportGraph(root: string): ImportGraph {
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Map<string, number>>();
  for (const file of ROOTS.flatMap((r) => sources(root, r))) {
    const targets = new Set<string>();
    for (const spec of relativeImports(readFileSync(path.join(root, file), "utf8"))) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      if (target.endsWith(".json")) continue;
      targets.add(target);
      const from = folderOf(file);
      const to = folderOf(target);
      if (from === to) continue;
      const edges = folders.get(from) ?? new Map<string, number>();
      edges.set(to, (edges.get(to) ?? 0) + 1);
      folders.set(from, edges);
    }
    files.set(file, targets);
  }
  return { files, folders };
}

/** Strongly connected components with more than one member: the cycles of a directed graph. */
export function cycles(edges: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Imports that break the layer order: "from -> to (why)". */
export function layerViolations(graph: ImportGraph): string[] {
  const problems: string[] = [];
  for (const [file, targets] of graph.files) {
    const fromLayer = layerOf(file);
    for (const target of targets) {
      const toLayer = layerOf(target);
      if (!fromLayer || !toLayer) {
        problems.push(`${file} -> ${target} (outside the layer map)`);
        continue;
      }
      if (fromLayer === toLayer) continue;
      if (LAYERS[toLayer]! >= LAYERS[fromLayer]!) {
        problems.push(`${file} -> ${target} (${fromLayer} may not import ${toLayer})`);
      } else if (ADAPTER_REACH[fromLayer] && !ADAPTER_REACH[fromLayer].includes(toLayer)) {
        problems.push(`${file} -> ${target} (${fromLayer} reaches the world only through src/aic)`);
      }
    }
  }
  return problems;
}

/** The folder graph as text, lowest layer first. */
export function describeFolders(graph: ImportGraph): string {
  const rank = (folder: string) => LAYERS[layerOf(folder) ?? ""] ?? 99;
  const names = [...new Set([...graph.files.keys()].map(folderOf))].sort(
    (a, b) => rank(a) - rank(b) || a.localeCompare(b),
  );
  return names
    .map((folder) => {
      const edges = [...(graph.folders.get(folder) ?? new Map<string, number>())]
        .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
        .map(([to, count]) => `${to} (${count})`);
      return `${folder.padEnd(12)} -> ${edges.length ? edges.join(", ") : "(nothing)"}`;
    })
    .join("\n");
}
