// Where each world action kind's shape is written: the production files (tests and generated
// documents aside) that declare an object of that kind (`kind: "<kind>"` in a type, or in an object
// a function builds and returns: a mapping from one shape to another). An action handed straight to
// a call (`service.act(actor, {kind: "leave"})`, `runtime.submit({kind: "arrive", ...})`) is sent,
// not declared: tsc checks it against the one shape, which its kind's file declares. Every kind is
// written in its own file only (src/world/actions/<kind>.ts), everything else derived, except what
// EXCEPTIONS lists and why.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ACTIONS } from "../../src/world/actions/registry.ts";

/** Kinds allowed in more files than their own, with the reason: their count may only go down. */
export const EXCEPTIONS: Readonly<Record<string, { files: number; why: string }>> = {
  moveTo: {
    files: 2,
    why: "the page's click_to_move names the tile destTx/destTy (its wire shape): src/http/humans/connection.ts maps it to dest",
  },
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
  /** What breaks the rule: a kind written outside its file (beyond its EXCEPTIONS entry). */
  problems: string[];
}

/** Whether an object literal is handed straight to a call (as an argument, or inside one). */
function sentToACall(node: ts.Node): boolean {
  let at: ts.Node = node;
  while (
    ts.isObjectLiteralExpression(at.parent) ||
    ts.isPropertyAssignment(at.parent) ||
    ts.isArrayLiteralExpression(at.parent) ||
    ts.isParenthesizedExpression(at.parent) ||
    ts.isAsExpression(at.parent) ||
    ts.isSatisfiesExpression(at.parent)
  )
    at = at.parent;
  return ts.isCallExpression(at.parent) && at.parent.arguments.includes(at as ts.Expression);
}

/** The kinds whose shape a source file writes (see the top of this file). */
export function kindsWritten(file: string, text: string): Set<string> {
  const kinds = new Set<string>();
  const visit = (node: ts.Node): void => {
    const named = ts.isPropertySignature(node) || ts.isPropertyAssignment(node);
    if (named && node.name.getText() === "kind") {
      const value = ts.isPropertySignature(node) ? node.type : node.initializer;
      const literal =
        value && ts.isLiteralTypeNode(value)
          ? value.literal
          : value && ts.isStringLiteral(value)
            ? value
            : undefined;
      if (
        literal &&
        ts.isStringLiteral(literal) &&
        !(ts.isPropertyAssignment(node) && sentToACall(node.parent))
      )
        kinds.add(literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  return kinds;
}

export function actionShapes(root: string): ActionShapes {
  const written = ROOTS.flatMap((r) => sources(root, r)).map((file) => ({
    file,
    kinds: kindsWritten(file, readFileSync(path.join(root, file), "utf8")),
  }));
  const files = new Map<string, string[]>();
  const problems: string[] = [];
  for (const action of ACTIONS) {
    const where = written.filter(({ kinds }) => kinds.has(action.kind)).map(({ file }) => file);
    files.set(action.kind, where);
    const limit = EXCEPTIONS[action.kind]?.files ?? 1;
    if (where.length > limit)
      problems.push(
        `the shape of "${action.kind}" is written in ${where.length} files (at most ${limit}): ${where.join(", ")}`,
      );
  }
  return { files, problems };
}
