import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { actionShapes, EXCEPTIONS, fieldNamesByKind, kindsWritten } from "./lib/action-shapes.ts";

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

  it("counts a kind's own fields written out again in the schema of an action, not spread or referred to", () => {
    const names = fieldNamesByKind();
    expect(names.get("chat")).toEqual(["channel", "message"]);
    expect(names.get("moveTo")).toEqual(["dest"]);
    const request =
      "const R = request({ agentId: IdAgent, roomId: IdRoom, txId: IdTx, channel: ChatChannel, message: chatText() });";
    const message =
      'const M = z.strictObject({ type: z.literal("interact"), targetId, action: name(), params: P });';
    const tagged = 'const E = z.strictObject({ kind: z.literal("moveTo"), dest: TileCoord });';
    const derived =
      'const D = request({ agentId, txId: IdTx, ...chatWire.fields }); const S = z.strictObject({ kind: z.literal("moveTo"), ...moveToWire.fields });';
    // Not an action's schema: a chat record names channel and message, but carries no txId or tag.
    const record = "const C = z.strictObject({ id: IdMessage, channel: ChatChannel, message: chatText() });";
    // Tagged with another kind: interact's own fields are not all there, and approach is not asked.
    const hint =
      'const H = z.strictObject({ kind: z.literal("interact"), targetId: IdEntity, action: name() });';
    expect([...kindsWritten("r.ts", request, names)]).toEqual(["chat"]);
    expect([...kindsWritten("m.ts", message, names)]).toEqual(["interact"]);
    expect([...kindsWritten("e.ts", tagged, names)]).toEqual(["moveTo"]);
    expect([...kindsWritten("d.ts", derived, names)]).toEqual([]);
    expect([...kindsWritten("c.ts", record, names)]).toEqual([]);
    expect([...kindsWritten("h.ts", hint, names)]).toEqual([]);
  });
});
