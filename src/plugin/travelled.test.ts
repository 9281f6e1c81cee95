// The AIC door after a portal to another world (docs/cluster.md): an agent that left this world
// through one is answered with the standby's typed redirect, to the gateway serving the world it
// went to, so the tools' remote mode follows it; while no gateway serves that world it is told to
// retry; nobody else is redirected, and the agent is served here again once it came back.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter } from "../aic/rate-limit.ts";
import { AicService } from "../aic/service.ts";
import { silentLogger } from "../aic/testing/local-world.ts";
import { checkResponse } from "../aic/testing/oracle.ts";
import type { DirectoryEntry } from "../cluster/ownership.ts";
import { createAicHttpHandler } from "../http/aic/aic-app.ts";
import { WorldRuntime } from "../runtime/world-runtime.ts";
import { portalWorld } from "../world/testing/fixtures.ts";
import { join, walkTo } from "../world/testing/helpers.ts";
import { World } from "../world/world.ts";
import { travelledVia } from "./cluster-host.ts";

const SOUTH: DirectoryEntry = {
  room: "south",
  gatewayId: "gw-b",
  baseUrl: "http://127.0.0.1:9/b/",
  epoch: 3,
};
const TOKENS: Record<string, string> = { "tok-ana": "ana", "tok-bo": "bo" };
let owner: DirectoryEntry | undefined = SOUTH;
let world: World;
let runtime: WorldRuntime;
let server: Server;
let base = "";

beforeAll(async () => {
  world = World.create(portalWorld("north", "hall", "south", "yard"));
  world.step([join("agt_ana"), join("agt_bo")]);
  walkTo(world, "agt_ana", 7, 4);
  world.step([{ kind: "moveTo", entityId: "agt_ana", dest: { tx: 8, ty: 4 } }]);
  for (let i = 0; i < 100 && world.getEntity("agt_ana"); i++) world.step([]);
  expect(world.departedTo("agt_ana")).toBe("south");
  runtime = new WorldRuntime(world, silentLogger);
  const service = new AicService({
    runtime,
    agents: (id) => ({ name: id }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const handler = createAicHttpHandler({
    service,
    tokens: (t) => TOKENS[t],
    logger: silentLogger,
    travelled: travelledVia(runtime, { ownerOf: (room) => (room === "south" ? owner : undefined) }),
  });
  server = createServer((req, res) => void handler.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  runtime.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const observe = (token: string) =>
  fetch(`${base}/aic/v0.1/observe`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ agentId: TOKENS[token], roomId: "hall", radius: 5, detail: "lite" }),
  });

describe("an agent that went through a portal to another world", () => {
  it("is redirected (307) to the gateway serving that world, with a contract error naming it", async () => {
    owner = SOUTH;
    const res = await observe("tok-ana");
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:9/b/aic/v0.1/observe");
    const body = await res.json();
    expect(checkResponse("ObserveResponseData", body)).toEqual([]);
    expect(body.error).toMatchObject({
      code: "room_not_ready",
      retryable: true,
      details: {
        world: "south",
        owner: { gatewayId: "gw-b", baseUrl: SOUTH.baseUrl, room: "south", epoch: 3 },
        location: "http://127.0.0.1:9/b/aic/v0.1/observe",
      },
    });
  });

  it("is told to retry while no gateway serves that world", async () => {
    owner = undefined;
    const res = await observe("tok-ana");
    expect(res.status).toBe(200);
    expect(res.headers.get("retry-after")).toBe("1");
    const body = await res.json();
    expect(checkResponse("ObserveResponseData", body)).toEqual([]);
    expect(body.error).toMatchObject({
      code: "room_not_ready",
      retryable: true,
      details: { world: "south" },
    });
  });

  it("does not redirect anyone else, nor the agent once it came back", async () => {
    owner = SOUTH;
    const pending = observe("tok-bo");
    const bo = await pending;
    expect(bo.status).toBe(200);
    expect((await bo.json()).status).toBe("ok");
    const [transfer] = world.outgoingTransfers();
    world.step([{ kind: "arrive", entityId: "agt_ana", transfer: { ...transfer!, id: "south:1:agt_ana" } }]);
    const ana = await observe("tok-ana");
    expect(ana.status).toBe(200);
    expect((await ana.json()).status).toBe("ok");
  });
});
