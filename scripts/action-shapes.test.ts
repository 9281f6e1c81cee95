import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { actionShapes, EXCEPTIONS, kindsWritten } from "./lib/action-shapes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("action shapes", () => {
  it("every kind is written in its own file only (EXCEPTIONS aside)", () => {
    const shapes = actionShapes(root);
    expect(shapes.problems).toEqual([]);
    expect(shapes.files.get("emote")).toEqual(["src/world/actions/emote.ts"]);
    expect(shapes.files.get("chat")).toEqual(["src/world/actions/chat.ts"]);
    for (const [kind, files] of shapes.files)
      if (!(kind in EXCEPTIONS)) expect(files.length, kind).toBeLessThanOrEqual(1);
  });

  it("counts a kind declared in a type or built by a mapping, not one sent to a call", () => {
    const declared = 'type A = { kind: "chat"; message: string } | { kind: "join" };';
    const mapped = 'function f(m: M) { return { kind: "moveTo", dest: { tx: m.x, ty: m.y } }; }';
    const sent =
      'service.act(actor, { kind: "leave" }); runtime.submit({ kind: "arrive", transfer: { id } });';
    const nested = 'list.push({ why, action: { kind: "interact", targetId } });';
    expect([...kindsWritten("a.ts", declared)].sort()).toEqual(["chat", "join"]);
    expect([...kindsWritten("b.ts", mapped)]).toEqual(["moveTo"]);
    expect([...kindsWritten("c.ts", sent)]).toEqual([]);
    expect([...kindsWritten("d.ts", nested)]).toEqual([]);
  });
});
