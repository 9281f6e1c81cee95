// A browser following its person between gateways, on a real web surface over loopback: the
// `travel` message to the browser of a character that left, and the `claim` join on the side where
// it arrived (one use; a wrong, used or unknown claim is a typed error, and the socket may join
// as someone new after it).
import { afterEach, describe, expect, it, vi } from "vitest";
import { until } from "../../../test/support/wait.ts";
import { joinWs } from "../../../test/support/ws-client.ts";
import { RateLimiter } from "../../aic/rate-limit.ts";
import { AicService } from "../../aic/service.ts";
import { BUNDLED_WORLD_DIR, loadWorldDir } from "../../runtime/load-world-dir.ts";
import { WorldRuntime } from "../../runtime/world-runtime.ts";
import { World } from "../../world/world.ts";
import { ClaimBook, claimHash, newClaimSecret } from "./claims.ts";
import { parseClientMessage } from "./protocol.ts";
import { serveOnLoopback } from "./testing/serve-loopback.ts";
import { createWebSurface } from "./web-surface.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function surface(joinCode?: string) {
  const quiet = { info() {}, warn() {}, error() {} };
  const runtime = new WorldRuntime(World.create(await loadWorldDir(BUNDLED_WORLD_DIR)), quiet);
  runtime.start();
  cleanups.push(() => runtime.stop());
  const service = new AicService({ runtime, agents: (id) => ({ name: id }), limiter: new RateLimiter() });
  const web = createWebSurface({
    service,
    worldDir: BUNDLED_WORLD_DIR,
    logger: quiet,
    arrivalWaitMs: 300,
    ...(joinCode ? { joinCode } : {}),
  });
  const served = await serveOnLoopback(web);
  cleanups.push(() => served.close());
  return { runtime, service, web, url: served.wsUrl };
}

describe("a browser following its person to another gateway", () => {
  it("is told where to go, and its session here ends", async () => {
    const { web, url } = await surface();
    const { ws, frames, welcome } = await joinWs(url, { name: "Ada" });
    cleanups.push(() => ws.terminate());
    const to = "http://127.0.0.1:9/world/?claim=abcdefghijklmnopqrstuvwx";
    web.travel(String(welcome.entityId), to);
    await until("the travel message", () => frames.some((f) => f.type === "travel"));
    expect(frames.find((f) => f.type === "travel")).toEqual({ type: "travel", url: to });
    expect(web.stats().sessions).toBe(0);
    // A traveller nobody's browser holds here (dropped, or never joined) is no error.
    expect(() => web.travel("hum_nobody", to)).not.toThrow();
  });

  it("lets the claim's holder in as the arrived person, once", async () => {
    const { runtime, service, web, url } = await surface();
    // The arrival, as the world applies it: a human in the world whom no session holds.
    const arrived = { entityId: "hum_arrivedAda", kind: "human" as const, name: "Ada", rateKey: "test:ada" };
    expect((await service.act(arrived, { kind: "join" })).status).toBe("ok");
    const secret = newClaimSecret();
    web.expectArrival(claimHash(secret), arrived.entityId);

    const wrong = await joinWs(url, { name: "Mallory", claim: newClaimSecret() });
    cleanups.push(() => wrong.ws.terminate());
    expect(wrong.welcome).toMatchObject({ type: "error", code: "claim_invalid", for: "join" });
    expect(String(wrong.welcome.message)).toContain("not known");

    const claimed = await joinWs(url, { name: "whoever", claim: secret });
    cleanups.push(() => claimed.ws.terminate());
    expect(claimed.welcome).toMatchObject({
      type: "welcome",
      entityId: arrived.entityId,
      name: "Ada",
      resumed: true,
    });
    expect(typeof claimed.welcome.resumeToken).toBe("string");
    expect(runtime.world.getEntity(arrived.entityId)?.name).toBe("Ada");

    const again = await joinWs(url, { name: "Eve", claim: secret });
    cleanups.push(() => again.ws.terminate());
    expect(again.welcome).toMatchObject({ type: "error", code: "claim_invalid", for: "join" });
    expect(String(again.welcome.message)).toContain("already used");
    // Refused, the same socket joins as someone new (the page's ordinary join form).
    again.ws.send(JSON.stringify({ type: "join", name: "Eve" }));
    await until("Eve's welcome", () => again.frames.some((f) => f.type === "welcome"));
    expect(again.frames.find((f) => f.type === "welcome")).toMatchObject({ name: "Eve", resumed: false });
  });

  it("a claimed page that drops comes back as the person by this gateway's token and the name it was given", async () => {
    const { service, web, url } = await surface();
    const arrived = {
      entityId: "hum_arrivedWren",
      kind: "human" as const,
      name: "Wren",
      rateKey: "test:wren",
    };
    expect((await service.act(arrived, { kind: "join" })).status).toBe("ok");
    const secret = newClaimSecret();
    web.expectArrival(claimHash(secret), arrived.entityId);
    // The page joins by the link with a placeholder: its origin does not know the person's name.
    const claimed = await joinWs(url, { name: "Traveller", claim: secret });
    expect(claimed.welcome).toMatchObject({ entityId: arrived.entityId, name: "Wren" });
    const resumeToken = String(claimed.welcome.resumeToken);
    claimed.ws.terminate();

    // What the page's connection sends on a reconnect (web/client/net.ts): the name it was given.
    const back = await joinWs(url, { name: claimed.welcome.name, resumeToken });
    cleanups.push(() => back.ws.terminate());
    expect(back.welcome).toMatchObject({ type: "welcome", entityId: arrived.entityId, resumed: true });
    // The placeholder with the same token would be someone new, and the arrived person would go
    // (room-hooks.ts: a resume asking for another name).
    const other = await joinWs(url, { name: "Traveller", resumeToken });
    cleanups.push(() => other.ws.terminate());
    expect(other.welcome).toMatchObject({ type: "welcome", name: "Traveller", resumed: false });
    expect(other.welcome.entityId).not.toBe(arrived.entityId);
  });

  it("lets a claim in without the private world's join code", async () => {
    const { service, web, url } = await surface("letmein");
    const arrived = { entityId: "hum_privateCy", kind: "human" as const, name: "Cy", rateKey: "test:cy" };
    expect((await service.act(arrived, { kind: "join" })).status).toBe("ok");
    const secret = newClaimSecret();
    web.expectArrival(claimHash(secret), arrived.entityId);
    const claimed = await joinWs(url, { name: "whoever", claim: secret });
    cleanups.push(() => claimed.ws.terminate());
    expect(claimed.welcome).toMatchObject({ type: "welcome", entityId: arrived.entityId, name: "Cy" });
    const stranger = await joinWs(url, { name: "Dee" });
    cleanups.push(() => stranger.ws.terminate());
    expect(stranger.welcome).toMatchObject({ type: "error", code: "forbidden" });
  });

  it("waits a moment for a claim whose arrival is still on its way", async () => {
    const { service, web, url } = await surface();
    const arrived = { entityId: "hum_lateBo", kind: "human" as const, name: "Bo", rateKey: "test:bo" };
    const secret = newClaimSecret();
    const asked = vi.spyOn(ClaimBook.prototype, "take");
    const joining = joinWs(url, { name: "whoever", claim: secret });
    await until("the claim asked for before its arrival", () =>
      asked.mock.results.some((r) => r.type === "return" && r.value.ok === false),
    );
    asked.mockRestore();
    expect((await service.act(arrived, { kind: "join" })).status).toBe("ok");
    web.expectArrival(claimHash(secret), arrived.entityId);
    const claimed = await joining;
    cleanups.push(() => claimed.ws.terminate());
    expect(claimed.welcome).toMatchObject({ type: "welcome", entityId: arrived.entityId, name: "Bo" });
  });

  it("parses a claim join and refuses a malformed claim", () => {
    const secret = newClaimSecret();
    expect(parseClientMessage(JSON.stringify({ type: "join", name: "Ada", claim: secret }))).toEqual({
      ok: true,
      message: { type: "join", name: "Ada", claim: secret },
    });
    expect(parseClientMessage(JSON.stringify({ type: "join", name: "Ada", claim: "short" }))).toMatchObject({
      ok: false,
      code: "bad_request",
      forType: "join",
    });
  });
});
