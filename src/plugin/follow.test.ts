// Issue #52: the follow page's links (one agent, expiry, revocation) and its scoping: the agent's own
// AIC token or a link's key reads that agent only; anything else is 401, another agent's id 403.
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { resolveConfig } from "../config/config.ts";
import { FOLLOW_KEY_HEADER, FOLLOW_ROUTE, followRouteHandler } from "../http/follow-routes.ts";
import { tokenDirectory } from "./adapters.ts";
import { agentTurnHooks, only } from "./agent-turns.ts";
import { FollowDesk } from "./follow-desk.ts";
import { FOLLOW_LINK_TTL_MS, FollowLinks } from "./follow-link.ts";
import { createHost } from "./host.ts";
import { turnInWords } from "./in-words.ts";
import { ReplayDesk } from "./replay-desk.ts";

const quiet = { info() {}, warn() {}, error() {} };
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0).reverse()) f();
});

const keyOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get("key")!;

describe("follow links", () => {
  it("are scoped to one agent, expire, and are revoked one or all", () => {
    let now = 1_000;
    const links = new FollowLinks(() => now);
    const a = links.mint("agent_a", "http://x");
    const a2 = links.mint("agent_a", "http://x", 3_600_000);
    const b = links.mint("agent_b", "http://x");
    expect(a.url.startsWith(`http://x${FOLLOW_ROUTE}/#key=`)).toBe(true);
    expect(links.agentOf(keyOf(a.url))).toBe("agent_a");
    expect(links.agentOf(keyOf(b.url))).toBe("agent_b");
    expect(links.agentOf("bm90LWEta2V5")).toBeUndefined();
    expect(links.agentOf(undefined)).toBeUndefined();
    // The list never carries a key.
    expect(JSON.stringify(links.list())).not.toContain(keyOf(a.url));
    expect(links.list("agent_a").map((l) => l.linkId)).toEqual([a.linkId, a2.linkId]);

    // One link revoked; the agent's other stays. Another agent's link is not touched by its id.
    expect(links.revoke("agent_b", a2.linkId)).toEqual({ revoked: 0 });
    expect(links.revoke("agent_a", a2.linkId)).toEqual({ revoked: 1 });
    expect(links.agentOf(keyOf(a2.url))).toBeUndefined();
    expect(links.agentOf(keyOf(a.url))).toBe("agent_a");

    // Past its end, nothing; all of an agent's revoked at once.
    now += FOLLOW_LINK_TTL_MS;
    expect(links.agentOf(keyOf(a.url))).toBeUndefined();
    const again = links.mint("agent_b", "http://x");
    expect(links.revoke("agent_b")).toEqual({ revoked: 1 });
    expect(links.agentOf(keyOf(again.url))).toBeUndefined();
    expect(() => links.mint("agent_a", "http://x", 0)).toThrow(/hours/);
    expect(() => links.mint("agent_a", "http://x", 8 * 24 * 3_600_000)).toThrow(/hours/);
  });

  it("kept in their file, they outlive the world that minted them (a restart, a reload); revoked stays revoked; the file holds no key", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ocw-follow-links-"));
    try {
      const file = path.join(dir, "openclawworld", "follow-links.json");
      let now = 1_000;
      const first = new FollowLinks(() => now, file);
      const a = first.mint("agent_a", "http://x");
      const b = first.mint("agent_b", "http://x");
      first.revoke("agent_b");
      const kept = await readFile(file, "utf8");
      expect(kept).not.toContain(keyOf(a.url));
      const second = new FollowLinks(() => now, file);
      expect(second.agentOf(keyOf(a.url))).toBe("agent_a");
      expect(second.agentOf(keyOf(b.url))).toBeUndefined();
      expect(second.list().map((l) => l.linkId)).toEqual([a.linkId]);
      now += FOLLOW_LINK_TTL_MS;
      expect(new FollowLinks(() => now, file).agentOf(keyOf(a.url))).toBeUndefined();
      // A damaged file: no links (nothing thrown); the next mint writes it anew.
      await writeFile(file, "{not json");
      const third = new FollowLinks(() => now, file);
      expect(third.list()).toEqual([]);
      const c = third.mint("agent_c", "http://x");
      expect(new FollowLinks(() => now, file).agentOf(keyOf(c.url))).toBe("agent_c");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

async function followed() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-follow-"));
  const config = resolveConfig({
    agents: {
      agent_a: { token: "token-aaaaaaaaaaaaaaaa", name: "Ann" },
      agent_b: { token: "token-bbbbbbbbbbbbbbbb", name: "Bo" },
    },
  });
  const host = await createHost({ config, logger: quiet, stateDir: dir });
  cleanup.push(() => {
    host.runtime.stop();
    host.history?.close();
    host.store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const aic = new AicService({
    runtime: host.runtime,
    agents: (id) => ({ name: config.agents[id]?.name ?? id }),
    limiter: new RateLimiter({}),
    ...only(agentTurnHooks(host), "onCall"),
  });
  host.aic = aic;
  host.tokens = tokenDirectory(config.agents);
  const tick = async <T>(pending: Promise<T>): Promise<T> => {
    host.runtime.stepNow();
    return pending;
  };
  const links = new FollowLinks();
  const desk = new FollowDesk(host, links, () => new ReplayDesk(host.definition, host.history!));
  const server = createServer(
    followRouteHandler(
      () => desk,
      quiet,
      () => true,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => server.close());
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (route: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${origin}${FOLLOW_ROUTE}/api/${route}`, { headers });
    if (route.startsWith("stream")) {
      await res.body?.cancel();
      return { status: res.status, data: undefined as never };
    }
    return { status: res.status, data: ((await res.json()) as { data: never }).data };
  };
  return { host, aic, tick, desk, links, origin, get };
}

describe("the follow API", () => {
  it("answers the token's agent or the link's, and nobody else", async () => {
    const { aic, tick, links, origin, get } = await followed();
    for (const agentId of ["agent_a", "agent_b"])
      await tick(aic.call("join", agentId, { agentId, roomId: "lobby" }));
    await tick(
      aic.call("chatSend", "agent_a", {
        agentId: "agent_a",
        roomId: "lobby",
        txId: "tx_follow_a1",
        channel: "global",
        message: "hello all",
      }),
    );
    // A turn of B's that A's token must never show.
    await tick(
      aic.call("chatSend", "agent_b", {
        agentId: "agent_b",
        roomId: "lobby",
        txId: "tx_follow_b1",
        channel: "global",
        message: "B's own words",
      }),
    );
    const a = { authorization: "Bearer token-aaaaaaaaaaaaaaaa" };
    const link = links.mint("agent_b", origin);
    const byLink = { [FOLLOW_KEY_HEADER]: keyOf(link.url) };
    for (const route of ["view", "turns", "events?cursor=0", "stream"]) {
      const sep = route.includes("?") ? "&" : "?";
      expect((await get(route)).status, route).toBe(401);
      expect((await get(route, { authorization: "Bearer nope" })).status, route).toBe(401);
      expect((await get(route, { authorization: "Basic abc" })).status, route).toBe(401);
      expect((await get(route, { [FOLLOW_KEY_HEADER]: "nope" })).status, route).toBe(401);
      expect((await get(`${route}${sep}agentId=agent_b`, a)).status, route).toBe(403);
      expect((await get(`${route}${sep}agentId=agent_a`, byLink)).status, route).toBe(403);
      expect((await get(`${route}${sep}agentId=agent_a`, a)).status, route).toBe(200);
      expect((await get(route, byLink)).status, route).toBe(200);
    }

    const view = (await get("view", a)).data as {
      agentId: string;
      entityId: string;
      room: { roomId: string };
    };
    expect(view).toMatchObject({ agentId: "agent_a", entityId: "agt_agent_a", room: { roomId: "lobby" } });
    const turns = (await get("turns", a)).data as { turns: { agentId: string; words: string }[] };
    expect(turns.turns.length).toBeGreaterThan(0);
    expect(turns.turns.every((t) => t.agentId === "agent_a")).toBe(true);
    expect(JSON.stringify(turns)).not.toContain("B's own words");
    expect(turns.turns[0]!.words).toMatch(/^Ann called chatSend \(\d+ ms\)$/);
    const events = (await get("events?cursor=0", a)).data as { events: { words: string }[]; next: string };
    expect(events.events.map((e) => e.words)).toContain('Ann said "hello all"');
    expect(events.events.map((e) => e.words)).toContain('Bo said "B\'s own words"');
    // Paged: one at a time, older before the last seq.
    const first = (await get("turns?limit=1", a)).data as { turns: { seq: number }[]; before: number };
    const second = (await get(`turns?limit=1&before=${first.before}`, a)).data as {
      turns: { seq: number }[];
    };
    expect(second.turns[0]!.seq).toBeLessThan(first.turns[0]!.seq);
    expect((await get("turns?limit=0", a)).status).toBe(400);

    const said = (agentId: string, message: string, txId: string) =>
      tick(
        aic.call("chatSend", agentId, {
          agentId,
          roomId: agentId === "agent_c" ? "garden" : "lobby",
          txId,
          channel: "global",
          message,
        }),
      );
    // Watch again: what it could perceive of its last minutes, and the room it was in at a tick.
    await tick(aic.call("join", "agent_c", { agentId: "agent_c", roomId: "garden" }));
    await said("agent_c", "only the garden hears this", "tx_follow_c1");
    const watched = (await get("watch?lastMinutes=1", a)).data as {
      segment: number;
      to: number;
      moments: { words: string }[];
    };
    const moments = watched.moments.map((m) => m.words);
    expect(moments).toContain('Ann said "hello all"');
    expect(moments).toContain('Bo said "B\'s own words"');
    expect(moments.join("\n")).not.toContain("garden hears");
    const then = (await get(`watch/frame?segment=${watched.segment}&tick=${watched.to}`, a)).data as {
      present: boolean;
      room: { roomId: string };
      entities: { id: string }[];
    };
    expect(then.present).toBe(true);
    expect(then.room.roomId).toBe("lobby");
    expect(then.entities.map((e) => e.id)).toContain("agt_agent_a");
    expect(then.entities.map((e) => e.id)).not.toContain("agt_agent_c");
    expect((await get("watch?lastMinutes=21", a)).status).toBe(400);
    expect((await get("watch/frame?segment=0", a)).status).toBe(400);
    // Watch again re-simulates: a few at a time per agent, then 429 (the other agent's own budget).
    expect((await get("watch?lastMinutes=1", a)).status).toBe(200);
    expect((await get("watch?lastMinutes=1", a)).status).toBe(429);
    expect((await get("watch?lastMinutes=1", byLink)).status).toBe(200);

    // The stream: what it perceives and its turns as they happen, its own only.
    const res = await fetch(`${origin}${FOLLOW_ROUTE}/api/stream`, { headers: a });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    await said("agent_b", "B again", "tx_follow_b2");
    await said("agent_a", "A again", "tx_follow_a2");
    while (!text.includes("event: turn")) text += (await reader.read()).value ?? "";
    await reader.cancel();
    expect(text).toContain('Bo said \\"B again\\"');
    expect(text).toContain("Ann called chatSend");
    expect(text).not.toContain("tx_follow_b2");

    // A few streams per agent: the next is refused until one closes.
    const open = await Promise.all(
      [1, 2, 3, 4].map(() => fetch(`${origin}${FOLLOW_ROUTE}/api/stream`, { headers: a })),
    );
    expect(open.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const fifth = await fetch(`${origin}${FOLLOW_ROUTE}/api/stream`, { headers: a });
    expect(fifth.status).toBe(429);
    expect((await get("stream", byLink)).status).toBe(200);
    await Promise.all(open.map((r) => r.body?.cancel()));
    expect((await get("events?cursor=%21bad", a)).status).toBe(400);
  });

  it("says turns in words: a resident's wake, a refusal, a blocked tool", () => {
    const base = { agentId: "r", tick: 1, time: 0, ms: 1500, request: "{}", answer: "{}" };
    expect(
      turnInWords(
        {
          ...base,
          kind: "turn",
          name: "turn",
          status: "ok",
          request: JSON.stringify({ wokenBy: [{ reason: "name", fromEntityId: "agt_x" }] }),
          answer: JSON.stringify({ modelRequests: 2, modelMs: 900 }),
        },
        "Herald",
        (id) => (id === "agt_x" ? "Mara" : id),
      ),
    ).toBe("Herald took a turn woken by Mara (name): done in 1500 ms; 2 model requests (900 ms)");
    expect(turnInWords({ ...base, kind: "call", name: "moveTo", status: "rate_limited" }, "Bo", String)).toBe(
      "Bo called moveTo (1500 ms, refused: rate_limited)",
    );
    expect(
      turnInWords(
        { ...base, kind: "blocked", name: "ocw_move_to", status: "tool_call_blocked" },
        "Bo",
        String,
      ),
    ).toBe("Bo was refused the tool ocw_move_to (tool_call_blocked)");
  });
});
