// Where each world action kind's shape is written: the production files (tests and generated
// documents aside) that declare an object of that kind (`kind: "<kind>"` in a type, or in an object
// a function builds and returns: a mapping from one shape to another), or that write its own fields
// (its file's `wire`/`doors` fields) out again in a schema of an action: a zod object that carries a
// `txId` or a `type`/`kind` literal (an AIC request, a browser message) with a property for each of
// the kind's fields instead of spreading or referring to them. An action handed straight to
// a call (`service.act(actor, {kind: "leave"})`, `runtime.submit({kind: "arrive", ...})`) is sent,
// not declared: tsc checks it against the one shape, which its kind's file declares. Every kind is
// written in its own file only (src/world/actions/<kind>.ts), everything else derived, except what
// EXCEPTIONS lists and why.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ACTIONS, wireOf } from "../../src/world/actions/registry.ts";

/** Kinds allowed in more files than their own, with the reason: their count may only go down. */
export const EXCEPTIONS: Readonly<Record<string, { files: number; why: string }>> = {
  moveTo: {
    files: 2,
    why: "click_to_move, deprecated for one version (a tab open across the upgrade still sends it; the page now sends act moveTo): its destTx/destTy is mapped to dest in src/http/humans/connection.ts",
  },
};

// The server side: the page (web/client) sends what the protocol shapes, it does not shape it.
const ROOTS = ["src", "conformance", "index.ts"];
// Files whose `kind` names something else: the replay's timeline markers ("chat", "join", "leave")
// are kinds of happening read from the log, not actions.
const OTHER_VOCABULARY = new Set(["src/plugin/replay-desk.ts"]);

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

/** Each kind's own field names (its `wire` or `doors` fields), for the kinds that declare them. */
export function fieldNamesByKind(): Map<string, string[]> {
  return new Map(
    ACTIONS.flatMap(({ kind }) => {
      const names = Object.keys(wireOf(kind)?.fields ?? {});
      return names.length > 0 ? [[kind, names] as [string, string[]]] : [];
    }),
  );
}

const SCHEMA_OBJECT_CALLS = new Set(["strictObject", "object", "looseObject", "request"]);

/** The string a `z.literal("...")` states, if `node` is one. */
function zodLiteral(node: ts.Expression | undefined): string | undefined {
  if (!node || !ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression))
    return undefined;
  const [arg] = node.arguments;
  return node.expression.name.text === "literal" && arg && ts.isStringLiteral(arg) ? arg.text : undefined;
}

/** The kinds whose own fields a zod object shape of an action writes out (see the top of this file). */
function fieldsWrittenIn(
  shape: ts.ObjectLiteralExpression,
  fieldNames: ReadonlyMap<string, string[]>,
): string[] {
  const written = new Map<string, ts.Expression>();
  for (const p of shape.properties)
    if (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p))
      written.set(p.name.getText(), ts.isPropertyAssignment(p) ? p.initializer : p.name);
  const tag = zodLiteral(written.get("kind")) ?? zodLiteral(written.get("type"));
  if (tag === undefined && !written.has("txId")) return [];
  // A shape tagged with an action kind is that kind's; any other is checked against every kind.
  const candidates = tag !== undefined && fieldNames.has(tag) ? [tag] : [...fieldNames.keys()];
  return candidates.filter((kind) => fieldNames.get(kind)!.every((f) => written.has(f)));
}

/** Whether `node` is the shape handed to `z.strictObject(...)`, `request(...)` and the like. */
function isSchemaShape(node: ts.Node): node is ts.ObjectLiteralExpression {
  if (!ts.isObjectLiteralExpression(node) || !ts.isCallExpression(node.parent)) return false;
  const callee = node.parent.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText();
  return SCHEMA_OBJECT_CALLS.has(name) && node.parent.arguments[0] === node;
}

/** The kinds whose shape a source file writes (see the top of this file). */
export function kindsWritten(
  file: string,
  text: string,
  fieldNames: ReadonlyMap<string, string[]> = new Map(),
): Set<string> {
  const kinds = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (isSchemaShape(node)) for (const kind of fieldsWrittenIn(node, fieldNames)) kinds.add(kind);
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
  const fieldNames = fieldNamesByKind();
  const written = ROOTS.flatMap((r) => sources(root, r)).map((file) => ({
    file,
    kinds: kindsWritten(file, readFileSync(path.join(root, file), "utf8"), fieldNames),
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
