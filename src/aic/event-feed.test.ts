// Event cursors with an asynchronous journal (a cluster room's shared log, #28): a tick whose write is
// in flight is not served yet. Found by the failover soak (scripts/cluster-soak.ts): a poll answered
// with an in-flight tick's events moved the agent's cursor past them; when the write then failed (the
// owner killed or deposed), the next owner's world numbered other events the same, and the cursor
// skipped them (or was "ahead of this room's event log" and expired).
import { describe, expect, it } from "vitest";
import { until } from "../../test/support/wait.ts";
import { decodeCursor } from "./cursor.ts";
import { createTestEnv } from "./testing/local-world.ts";

const A = "agent_helper";
const B = "agent_other";
const room = "lobby";

function seqOf(cursor: string): number {
  const decoded = decodeCursor(cursor, room);
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.position.afterSeq;
}

describe("event feed with an asynchronous journal", () => {
  it("serves a tick's events only once its journal write is acknowledged", async () => {
    const env = await createTestEnv();
    await env.join(A, B);
    const commits: (() => void)[] = [];
    env.runtime.journal = {
      commit: () => new Promise<void>((resolve) => commits.push(resolve)),
      recover: () => env.world,
    };
    const before = await env.service.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: "c_0" });
    if (before.status !== "ok") throw new Error(JSON.stringify(before));
    const cursor = before.data.nextCursor;

    const sent = env.service.call("chatSend", B, {
      agentId: B,
      roomId: room,
      txId: "tx_in_flight_1",
      channel: "global",
      message: "not stored yet",
    });
    await until("the chat queued for the next tick", () => env.runtime.health().queueDepth > 0);
    env.runtime.stepNow();
    expect(commits).toHaveLength(1);
    expect(env.world.latestSeq(room)).toBeGreaterThan(seqOf(cursor)); // the world has stepped

    // In flight: the chat's event is not served, and the cursor does not move past it.
    const during = await env.service.call("pollEvents", A, { agentId: A, roomId: room, sinceCursor: cursor });
    if (during.status !== "ok") throw new Error(JSON.stringify(during));
    expect(during.data.events).toEqual([]);
    expect(seqOf(during.data.nextCursor)).toBe(seqOf(cursor));

    // Acknowledged: served, once.
    commits[0]!();
    expect((await sent).status).toBe("ok");
    const after = await env.service.call("pollEvents", A, {
      agentId: A,
      roomId: room,
      sinceCursor: during.data.nextCursor,
    });
    if (after.status !== "ok") throw new Error(JSON.stringify(after));
    const chats = after.data.events.filter((e) => e.type === "chat.message");
    expect(chats.map((e) => e.payload.message)).toEqual(["not stored yet"]);
  });
});
