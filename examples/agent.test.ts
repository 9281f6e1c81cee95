// The example agent, as a user runs it, against this server's AIC over HTTP on 127.0.0.1 (a ticking
// world): it joins, reads the welcome sign, says hello and hears what follows.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { createTestEnv, silentLogger, type TestEnv } from "../src/aic/testing/local-world.ts";
import { createAicHttpHandler } from "../src/http/aic/aic-app.ts";
import { runAgent } from "./agent.ts";

let env: TestEnv;
let server: Server;
afterAll(async () => {
  env?.runtime.stop();
  await new Promise((r) => server?.close(r));
});

it("plays in a few lines: reads a sign, says hello, hears its own message", async () => {
  env = await createTestEnv({ agents: (id) => ({ name: id }) });
  const aic = createAicHttpHandler({
    service: env.service,
    tokens: (t) => (t === "token-of-example-0001" ? "example" : undefined),
    logger: silentLogger,
  });
  env.runtime.start();
  server = createServer((req, res) => void aic.handle(req, res));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const lines: string[] = [];
  const played = await runAgent({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/aic/v0.1`,
    token: "token-of-example-0001",
    agentId: "example",
    roomId: "lobby",
    listenFor: 2,
    log: (line) => lines.push(line),
  });
  expect(played.read, lines.join("\n")).toMatch(/\w/);
  expect(played.heard.map((e) => e.type)).toContain("chat.message");
  expect(lines[0]).toMatch(/^I am example in lobby; I see \d+ things$/);
}, 60_000);
