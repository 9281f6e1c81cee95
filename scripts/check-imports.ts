// Prints the folder import graph and fails on a folder cycle, a file cycle or an import against the
// layer order (see scripts/lib/import-graph.ts), and on an action kind whose shape is written in
// more places than allowed (scripts/lib/action-shapes.ts). `npm run check:imports`; the last line is JSON.
import { fileURLToPath } from "node:url";
import { actionShapes } from "./lib/action-shapes.ts";
import { buildImportGraph, cycles, describeFolders, folderOf, layerViolations } from "./lib/import-graph.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const graph = buildImportGraph(root);
const folderCycles = cycles(new Map([...graph.folders].map(([from, to]) => [from, to.keys()])));
const fileCycles = cycles(graph.files);
const violations = layerViolations(graph);
// Beside the graph: no action kind's shape written in more files than allowed (lib/action-shapes.ts).
const shapes = actionShapes(root);

console.log(describeFolders(graph));
for (const cycle of folderCycles) console.log(`FOLDER CYCLE: ${cycle.join(" <-> ")}`);
for (const cycle of fileCycles) console.log(`FILE CYCLE: ${cycle.join(" <-> ")}`);
for (const violation of violations) console.log(`LAYER: ${violation}`);
for (const problem of shapes.problems) console.log(`ACTION SHAPE: ${problem}`);
console.log(
  JSON.stringify({
    files: graph.files.size,
    folders: new Set([...graph.files.keys()].map(folderOf)).size,
    folderCycles: folderCycles.length,
    fileCycles: fileCycles.length,
    layerViolations: violations.length,
    actionShapeProblems: shapes.problems.length,
  }),
);
const failures = folderCycles.length + fileCycles.length + violations.length + shapes.problems.length;
process.exit(failures === 0 ? 0 : 1);
