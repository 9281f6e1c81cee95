// The doors of a cluster standby: the AIC route, the web page and its WebSocket answer 307 to the
// owner's same path (the AIC body a valid contract error naming the owner); with no owner known
// they answer "not running" as before.
import { randomBytes } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OwnerRef } from "../aic/owner-elsewhere.ts";
import { checkResponse } from "../aic/testing/oracle.ts";
import { ownerLocation } from "./owner-redirect.ts";
import { aicRouteHandler, worldRouteHandler, worldUpgradeHandler } from "./routes.ts";

const logger = { info() {}, warn() {}, error() {} };
const OWNER: OwnerRef = {
  room: "lobby-world",
  gatewayId: "gw-a",
  baseUrl: "https://a.world.example/",
  epoch: 7,
};
let owner: OwnerRef | undefined = OWNER;
let server: Server;
let base = "";

beforeAll(async () => {
  const elsewhere = () => owner;
  const aic = aicRouteHandler(
    () => undefined,
    logger,
    () => true,
    elsewhere,
  );
  const world = worldRouteHandler(
    () => undefined,
    () => ({ running: false }),
    logger,
    () => true,
    elsewhere,
  );
  const upgrade = worldUpgradeHandler(
    () => undefined,
    logger,
    () => true,
    elsewhere,
  );
  server = createServer((req, res) => void (req.url?.startsWith("/aic/") ? aic(req, res) : world(req, res)));
  server.on("upgrade", upgrade);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function upgradeStatus(): Promise<{ status: number; location?: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/world/ws?x=1`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": randomBytes(16).toString("base64"),
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, location: res.headers.location });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a standby's doors", () => {
  it("keeps the path and query, and never doubles the slash", () => {
    expect(ownerLocation(OWNER, "/world/?name=Ann")).toBe("https://a.world.example/world/?name=Ann");
  });

  it("redirects AIC, the page and the WebSocket to the owner", async () => {
    owner = OWNER;
    const aic = await fetch(`${base}/aic/v0.1/moveTo`, {
      method: "POST",
      body: JSON.stringify({ agentId: "a" }),
      redirect: "manual",
    });
    expect(aic.status).toBe(307);
    expect(aic.headers.get("location")).toBe("https://a.world.example/aic/v0.1/moveTo");
    expect(aic.headers.get("cache-control")).toBe("no-store");
    const body = await aic.json();
    expect(checkResponse("MoveToResponseData", body)).toEqual([]);
    expect(body.error).toMatchObject({
      code: "room_not_ready",
      retryable: true,
      details: {
        owner: { gatewayId: "gw-a", baseUrl: OWNER.baseUrl, epoch: 7, room: "lobby-world" },
        location: "https://a.world.example/aic/v0.1/moveTo",
      },
    });
    const page = await fetch(`${base}/world/`, { redirect: "manual" });
    expect([page.status, page.headers.get("location")]).toEqual([307, "https://a.world.example/world/"]);
    // The status is this gateway's own (it says who serves the world).
    expect((await fetch(`${base}/world/api/status`)).status).toBe(200);
    expect(await upgradeStatus()).toEqual({ status: 307, location: "https://a.world.example/world/ws?x=1" });
  });

  it("answers 'not running' when no owner is known", async () => {
    owner = undefined;
    const aic = await fetch(`${base}/aic/v0.1/observe`, { method: "POST", body: "{}", redirect: "manual" });
    expect(aic.status).toBe(503);
    expect((await aic.json()).error.code).toBe("room_not_ready");
    expect((await upgradeStatus()).status).toBe(503);
  });
});
