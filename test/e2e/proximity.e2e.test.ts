// Proximity bounded per actor through a real gateway of its own (not the shared e2e one: it runs a
// copy of the bundled world with `proximity_max_neighbors = 2`, so five agents make a crowd). The
// agents join over AIC HTTP and walk to one plaza tile (nobody ends a walk on a tile someone stands
// on, so the first stands on it and the others beside it: src/world/free-tile.ts); what each reads back with pollEvents names at
// most 2 others it is in proximity with, at least 1, and the pairs agree from both sides.
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { randomToken } from "../../scripts/lib/gateway.ts";
import { startGateway, type TestGateway, ticksPass } from "../support/gateway.ts";
import { runOcw } from "../support/ocw-cli.ts";
import { until } from "../support/wait.ts";
import { gateway } from "./fixtures.ts";

const MAX = 2;
const AGENTS = ["agent_crowd_a", "agent_crowd_b", "agent_crowd_c", "agent_crowd_d", "agent_crowd_e"];
const TILE = { tx: 20, ty: 14 }; // walkable, beside the plaza fountain
const lobbyDir = fileURLToPath(new URL("../../worlds/lobby", import.meta.url));

let worldDir: string | undefined;
let gw: TestGateway | undefined;

afterAll(async () => {
  await gw?.stop(); // SIGTERM, then wait for the exit
  if (worldDir) await rm(worldDir, { recursive: true, force: true });
});

interface Envelope {
  type: string;
  payload: { subjectId?: string; otherId?: string };
}

describe("proximity in a crowd through the gateway", () => {
  it("five agents walking to one tile, at most 2 proximity partners each: what pollEvents tells them", {
    timeout: 600_000,
  }, async () => {
    worldDir = await mkdtemp(path.join(os.tmpdir(), "ocw-crowd-world-"));
    await cp(lobbyDir, worldDir, { recursive: true });
    const toml = path.join(worldDir, "world.toml");
    const text = await readFile(toml, "utf8");
    expect(text).toContain("proximity_max_neighbors = 12");
    await writeFile(toml, text.replace("proximity_max_neighbors = 12", `proximity_max_neighbors = ${MAX}`));
    const tokens = Object.fromEntries(AGENTS.map((id) => [id, randomToken()]));
    gw = await startGateway({
      pluginConfig: {
        world: worldDir,
        agents: Object.fromEntries(AGENTS.map((id) => [id, { token: tokens[id]!, name: id }])),
      },
    });
    const call = async (agentId: string, endpoint: string, body: Record<string, unknown>) => {
      const res = await fetch(`${gw!.baseUrl}/aic/v0.1/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${tokens[agentId]}` },
        body: JSON.stringify({ agentId, roomId: "lobby", ...body }),
      });
      const json = (await res.json()) as { status: string; data: Record<string, unknown> };
      expect(json.status, `${agentId} ${endpoint}: ${JSON.stringify(json)}`).toBe("ok");
      return json.data;
    };

    const cursors = new Map<string, string>();
    for (const id of AGENTS) cursors.set(id, (await call(id, "join", {})).cursor as string);
    for (const id of AGENTS) await call(id, "moveTo", { txId: `tx_crowd_${id}`, dest: TILE });
    // Everyone arrived and stands still (observe: on the tile or within two of it, speed 0).
    for (const id of AGENTS) {
      // Observe allows 2 a second: looked at a little slower.
      await until(
        `${id} standing on the tile or beside it`,
        async () => {
          const self = (await call(id, "observe", { radius: 32, detail: "lite" })).self as {
            tile: { tx: number; ty: number };
            speed: number;
          };
          const near = Math.max(Math.abs(self.tile.tx - TILE.tx), Math.abs(self.tile.ty - TILE.ty)) <= 2;
          return near && self.speed === 0;
        },
        { timeoutMs: 120_000, everyMs: 700 },
      );
    }
    await ticksPass(gw.baseUrl, 4); // past the debounce (2 ticks) and the tick that reports it

    // Each agent's partners, from its own events (enter adds, exit removes).
    const partners = new Map<string, Set<string>>();
    for (const id of AGENTS) {
      const set = new Set<string>();
      let cursor = cursors.get(id)!;
      for (let page = 0; page < 50; page++) {
        const polled = await call(id, "pollEvents", { sinceCursor: cursor, limit: 200 });
        for (const event of polled.events as Envelope[]) {
          if (event.type !== "proximity.enter" && event.type !== "proximity.exit") continue;
          expect(event.payload.subjectId).toBe(`agt_${id}`); // an agent's entity id
          if (event.type === "proximity.enter") set.add(event.payload.otherId!);
          else set.delete(event.payload.otherId!);
          expect(set.size).toBeLessThanOrEqual(MAX);
        }
        if (polled.nextCursor === cursor) break;
        cursor = polled.nextCursor as string;
      }
      partners.set(`agt_${id}`, set);
    }
    const report = JSON.stringify(Object.fromEntries([...partners].map(([id, s]) => [id, [...s]])));
    for (const [id, set] of partners) {
      expect(set.size, report).toBeGreaterThanOrEqual(1);
      expect(set.size, report).toBeLessThanOrEqual(MAX);
      for (const other of set) expect(partners.get(other)?.has(id), report).toBe(true);
    }
  });

  // Issue #42: this gateway's world is another definition than the shared e2e gateway's (the same
  // name, another scene: its world.toml differs), so a stretch exported here is refused there.
  it("a replay export of this world is refused as other_world by a gateway of the bundled world", {
    timeout: 120_000,
  }, async () => {
    if (!gw) throw new Error("needs this file's gateway");
    const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-crowd-export-"));
    try {
      const file = path.join(dir, "stretch.json");
      const exported = JSON.parse(
        await runOcw(gw.baseUrl, gw.gatewayToken, "replay", "export", file, "1"),
      ) as {
        world: string;
      };
      expect(exported.world).toBe("lobby");
      const refused = await fetch(`${gateway().baseUrl}/openclawworld/admin/replay/open`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway().gatewayToken}`, "content-type": "application/json" },
        body: await readFile(file, "utf8"),
      });
      expect(refused.status).toBe(422);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe("other_world");
      expect(error.message).toContain("scene");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
