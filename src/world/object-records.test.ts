import { describe, expect, it } from "vitest";
import { MAX_RECORDS_PER_OBJECT, ObjectRecords } from "./object-records.ts";

describe("what objects keep about actors", () => {
  it("keeps one record per object and actor, a change moving it to the newest", () => {
    const records = new ObjectRecords();
    records.set("obj_a", "hum_x", { seen: "" });
    records.set("obj_a", "hum_y", { seen: "" });
    records.set("obj_b", "hum_x", { seen: "b" });
    records.set("obj_a", "hum_x", { seen: "a" });
    expect(records.get("obj_a", "hum_x")).toEqual({ seen: "a" });
    expect(records.of("hum_x")).toEqual([
      { objectId: "obj_a", record: { seen: "a" } },
      { objectId: "obj_b", record: { seen: "b" } },
    ]);
    expect(records.entries().map((e) => `${e.objectId}/${e.entityId}`)).toEqual([
      "obj_a/hum_y",
      "obj_a/hum_x",
      "obj_b/hum_x",
    ]);
    expect(records.size).toBe(3);
  });

  it("past the bound, the least recently changed record of that object goes first; a restore keeps the order", () => {
    const records = new ObjectRecords();
    for (let i = 0; i < MAX_RECORDS_PER_OBJECT; i++) records.set("obj_a", `hum_${i}`, { n: i });
    records.set("obj_a", "hum_0", { n: 0 });
    records.set("obj_a", "hum_new", { n: -1 });
    expect(records.size).toBe(MAX_RECORDS_PER_OBJECT);
    expect(records.get("obj_a", "hum_1")).toBeUndefined();
    expect(records.get("obj_a", "hum_0")).toEqual({ n: 0 });
    const copy = new ObjectRecords();
    copy.restore(records.entries());
    expect(copy.entries()).toEqual(records.entries());
  });
});
