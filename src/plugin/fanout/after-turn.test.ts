import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { batchAfterTurn } from "./after-turn.ts";

describe("batchAfterTurn", () => {
  it("hands over one turn's items in one call, in order, once the turn is over", async () => {
    const calls: number[][] = [];
    const batch = batchAfterTurn<number>((items) => calls.push(items));
    batch.push(1);
    batch.push(2);
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual([[1, 2]]);
    batch.push(3);
    await nextTurn();
    expect(calls).toEqual([[1, 2], [3]]);
  });

  it("drop forgets what is gathered, and the batch works again after it", async () => {
    const calls: number[][] = [];
    const batch = batchAfterTurn<number>((items) => calls.push(items));
    batch.push(1);
    batch.drop();
    await nextTurn();
    expect(calls).toEqual([]);
    batch.push(2);
    await nextTurn();
    expect(calls).toEqual([[2]]);
  });
});
