// A world whose portal leads to another world, opened by a gateway without the cluster config: the
// traveller would leave for a world nobody hands it to, so the operator is told at start.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeWorldDir } from "../../test/support/world-dir.ts";
import { resolveConfig } from "../config/config.ts";
import { portalWorldFiles } from "../world/testing/fixtures.ts";
import { createHost, disposeHost } from "./host.ts";

const logger = { info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("a portal to another world without the cluster config", () => {
  it("is named among the host's problems", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-portal-world-"));
    dirs.push(dir);
    await writeWorldDir(dir, portalWorldFiles("north", "lobby", "south", "lobby"));
    const host = await createHost({ config: resolveConfig({ world: dir }), logger });
    try {
      expect(host.problems).toContainEqual(expect.stringMatching(/obj_portal_south \(to south\).*/));
    } finally {
      await disposeHost(host, logger);
    }
  });
});
