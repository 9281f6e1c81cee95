// Where each world action kind's shape is written: the production files (tests and generated
// documents aside) that spell an object of that kind (`kind: "<kind>"`). A kind with doors
// (src/world/actions: ActionDoors) is written in its own file only, everything else derived; the
// older kinds still have their doors written by hand, and their count may only go down (BASELINE).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ACTIONS } from "../../src/world/actions/registry.ts";

/** Files writing each older kind's shape when its check was added (issue #40): a ratchet. */
export const BASELINE: Readonly<Record<string, number>> = {
  join: 3,
  leave: 2,
  thinking: 2,
  moveTo: 3,
  approach: 1,
  moveDir: 1,
  interact: 2,
  moderate: 2,
  chat: 2,
  reflect: 1,
  arrive: 2,
  transfersSent: 2,
};

// The server side: the page (web/client) sends what the protocol shapes, it does not shape it.
const ROOTS = ["src", "conformance", "index.ts"];
// Files whose `kind` names something else: the replay's timeline markers ("chat", "join", "leave")
// are kinds of happening read from the log, not actions.
const OTHER_VOCABULARY = new Set(["src/plugin/replay.ts"]);

function sources(root: string, rel: string): string[] {
  if (rel.endsWith(".ts")) return [rel];
  return readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((entry) => {
    const child = path.posix.join(rel, entry.name);
    if (entry.isDirectory())
      return entry.name === "node_modules" || entry.name === "testing" ? [] : sources(root, child);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !OTHER_VOCABULARY.has(child)
      ? [child]
      : [];
  });
}

export interface ActionShapes {
  /** kind -> the files that write its shape. */
  files: Map<string, string[]>;
  /** What breaks the rule: a kind with doors written outside its file, an older kind in more files. */
  problems: string[];
}

export function actionShapes(root: string): ActionShapes {
  const texts = ROOTS.flatMap((r) => sources(root, r)).map((file) => ({
    file,
    text: readFileSync(path.join(root, file), "utf8"),
  }));
  const files = new Map<string, string[]>();
  const problems: string[] = [];
  for (const action of ACTIONS) {
    const written = new RegExp(`\\bkind:\\s*["']${action.kind}["']`);
    const where = texts.filter(({ text }) => written.test(text)).map(({ file }) => file);
    files.set(action.kind, where);
    const limit = "doors" in action && action.doors ? 1 : (BASELINE[action.kind] ?? 1);
    if (where.length > limit)
      problems.push(
        `the shape of "${action.kind}" is written in ${where.length} files (at most ${limit}): ${where.join(", ")}`,
      );
  }
  return { files, problems };
}
