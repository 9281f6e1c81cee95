import { describe, expect, it, vi } from "vitest";
import { gateway, invokeTool } from "./fixtures.ts";

describe("the plugin in a real gateway", () => {
  it("ocw_status answers through POST /tools/invoke with a real, running world", async () => {
    const { status, body } = await invokeTool("ocw_status", {});
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    const details = body.result?.details as {
      running: boolean;
      world: { name: string };
      rooms: { roomId: string }[];
      tick: number;
    };
    expect(details.running).toBe(true);
    expect(details.world.name).toBeTruthy();
    expect(details.rooms.map((r) => r.roomId)).toEqual(expect.arrayContaining(["lobby", "garden"]));
    expect(body.result?.content[0]?.text).toContain("is running");
  });

  it("the world ticks: status tick advances", async () => {
    const first = (await invokeTool("ocw_status", {})).body.result?.details as {
      tick: number;
      serverTsMs: number;
    };
    await vi.waitFor(async () => {
      const second = (await invokeTool("ocw_status", {})).body.result?.details as {
        tick: number;
        serverTsMs: number;
      };
      expect(second.tick).toBeGreaterThan(first.tick);
      expect(second.serverTsMs).toBeGreaterThan(first.serverTsMs);
    });
  });

  it("the plugin route answers JSON, not the gateway's HTML fallback", async () => {
    const res = await fetch(`${gateway().baseUrl}/world/api/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = (await res.json()) as { running: boolean; rooms: unknown[] };
    expect(body.running).toBe(true);
    expect(body.rooms.length).toBeGreaterThanOrEqual(2);
  });

  it("an unknown plugin API path is a JSON 404, not HTML", async () => {
    const res = await fetch(`${gateway().baseUrl}/world/api/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});
