// The tick log's second copy: what a read trusts of a torn or damaged file, and how a restart keeps
// only the ticks after the snapshot it follows.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tickChecksum } from "./store.ts";
import { readTickMirror, TickMirror } from "./tick-mirror.ts";

const identity = { world: "lobby", sceneHash: "scene" };
const dirs: string[] = [];
const mirrors: TickMirror[] = [];
afterEach(() => {
  for (const m of mirrors.splice(0)) m.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function started(after: number, problems: string[] = []): { mirror: TickMirror; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-mirror-"));
  dirs.push(dir);
  const file = path.join(dir, "world.db.tick-mirror");
  const mirror = TickMirror.start(file, identity, after, {
    fsyncEach: false,
    onProblem: (p) => problems.push(p),
  });
  mirrors.push(mirror);
  return { mirror, file };
}

const row = (tick: number) => {
  const body = JSON.stringify({ inputs: [], digest: `d${tick}` });
  return { tick, body, checksum: tickChecksum(tick, body) };
};

describe("the tick log's second copy", () => {
  it("reads back every appended tick after the state it continues", () => {
    const { mirror, file } = started(7);
    for (let t = 8; t <= 12; t++) mirror.append(row(t), t % 2 === 0);
    const read = readTickMirror(file);
    expect(read).toMatchObject({ ok: true, identity, after: 7 });
    if (!read.ok) return;
    expect(read.rows.map((r) => r.tick)).toEqual([8, 9, 10, 11, 12]);
    expect(read.damage).toBeUndefined();
  });

  it("a cut last line or a damaged one ends the read there, and says so", () => {
    const { mirror, file } = started(0);
    for (let t = 1; t <= 4; t++) mirror.append(row(t), true);
    truncateSync(file, readFileSync(file).length - 5);
    const cut = readTickMirror(file);
    expect(cut.ok && cut.rows.map((r) => r.tick)).toEqual([1, 2, 3]);
    expect(cut.ok && cut.damage).toMatch(/last line is cut off/);

    const text = readFileSync(file, "utf8").split("\n");
    text[2] = text[2]!.replace('"d2"', '"dX"');
    writeFileSync(file, text.join("\n"));
    const damaged = readTickMirror(file);
    expect(damaged.ok && damaged.rows.map((r) => r.tick)).toEqual([1]);
    expect(damaged.ok && damaged.damage).toMatch(/line 3 is not tick 2's record/);
  });

  it("a row that does not continue the one before ends the read (no gap is bridged)", () => {
    const { mirror, file } = started(0);
    mirror.append(row(1), true);
    appendFileSync(file, `3\t${row(3).checksum}\t${row(3).body}\n`);
    const read = readTickMirror(file);
    expect(read.ok && read.rows.map((r) => r.tick)).toEqual([1]);
    expect(read.ok && read.damage).toMatch(/not tick 2's record/);
  });

  it("a missing file or a foreign header is a reason, never a throw", () => {
    const { file } = started(0);
    expect(readTickMirror(`${file}.nothing`)).toMatchObject({ ok: false, missing: true });
    writeFileSync(file, "garbage\n");
    expect(readTickMirror(file)).toMatchObject({ ok: false, missing: false });
  });

  it("a restart at a snapshot keeps the ticks written after its mark; a stale mark does nothing", () => {
    const { mirror, file } = started(0);
    mirror.append(row(1), true);
    const mark = mirror.mark(); // the snapshot is of tick 1
    mirror.append(row(2), true);
    mirror.append(row(3), true);
    expect(mirror.restart(1, mark)).toBe(true);
    mirror.append(row(4), true);
    const read = readTickMirror(file);
    expect(read).toMatchObject({ ok: true, after: 1 });
    expect(read.ok && read.rows.map((r) => r.tick)).toEqual([2, 3, 4]);
    // A mark taken before that restart describes a file that is gone.
    expect(mirror.restart(1, mark)).toBe(false);
    // A new timeline keeps nothing.
    expect(mirror.restart(40)).toBe(true);
    expect(readTickMirror(file)).toMatchObject({ ok: true, after: 40, rows: [] });
  });
});
