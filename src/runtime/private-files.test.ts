// Secrets on disk (issue #9): 0700 directories and 0600 files, also over looser existing ones.
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensurePrivateDir, writePrivateFile } from "./private-files.ts";
import { WorldStore } from "./store.ts";

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function scratch(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "ocw-private-"));
  made.push(dir);
  return dir;
}

const mode = async (p: string) => (await stat(p)).mode & 0o777;

describe("private files", () => {
  it("tightens an existing world-readable directory and file (what npm start left before)", async () => {
    const root = await scratch();
    const dir = path.join(root, "state");
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755);
    const file = path.join(dir, "openclaw.json");
    await writeFile(file, "{}", { mode: 0o644 });
    await chmod(file, 0o644);
    await ensurePrivateDir(dir);
    await writePrivateFile(file, '{"token":"secret"}');
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(file)).toBe(0o600);
  });

  it("creates new ones private, and the saved world is private too", async () => {
    const root = await scratch();
    await ensurePrivateDir(path.join(root, "a", "b"));
    expect(await mode(path.join(root, "a", "b"))).toBe(0o700);
    const dbFile = path.join(root, "openclawworld", "world.db");
    const store = WorldStore.open(dbFile);
    try {
      store.appendTick(1, "{}");
    } finally {
      store.close();
    }
    expect(await mode(dbFile)).toBe(0o600);
    expect(await mode(path.dirname(dbFile))).toBe(0o700);
  });
});
