// The plugin's request to its gateway to load it again runs the gateway's own CLI entry: here a stand-in
// script in its place, which says what it was asked, fails, or hangs.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gatewayEntry, requestGatewayReload } from "./gateway-reload-request.ts";

const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-reload-request-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function entry(body: string): string {
  const file = path.join(dir, `openclaw-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, body);
  return file;
}

describe("asking the gateway to load the plugin again", () => {
  it("runs `plugins reload <id> --json` with the gateway's environment and reads its answer", async () => {
    process.env.OCW_RELOAD_REQUEST_PROBE = "the gateway's env";
    const script = entry(
      "console.log(JSON.stringify({ ok: true, args: process.argv.slice(2), env: process.env.OCW_RELOAD_REQUEST_PROBE }));",
    );
    const outcome = await requestGatewayReload("openclawworld", { timeoutMs: 20_000, entry: script });
    delete process.env.OCW_RELOAD_REQUEST_PROBE;
    expect(outcome.ok).toBe(true);
    expect(JSON.parse(outcome.detail)).toEqual({
      ok: true,
      args: ["plugins", "reload", "openclawworld", "--json"],
      env: "the gateway's env",
    });
  });

  it("reports a refusal with what the CLI said, and stops a CLI that does not answer in time", async () => {
    const refused = await requestGatewayReload("openclawworld", {
      timeoutMs: 20_000,
      entry: entry('console.error("gateway closed (1006)"); process.exit(1);'),
    });
    expect(refused).toMatchObject({ ok: false, detail: "exit code 1: gateway closed (1006)" });
    const hung = await requestGatewayReload("openclawworld", {
      timeoutMs: 300,
      entry: entry("setInterval(() => {}, 1000);"),
    });
    expect(hung).toMatchObject({ ok: false, detail: "stopped by SIGTERM:" });
  });

  it("runs only an openclaw entry: a gateway started some other way is not guessed at", async () => {
    expect(gatewayEntry(["node", "/usr/lib/node_modules/openclaw/openclaw.mjs", "gateway"])).toBe(
      "/usr/lib/node_modules/openclaw/openclaw.mjs",
    );
    expect(gatewayEntry(["node", "/x/node_modules/.bin/openclaw", "gateway"])).toBe(
      "/x/node_modules/.bin/openclaw",
    );
    expect(gatewayEntry(["node", "/srv/app/server.js"])).toBeUndefined();
    expect(gatewayEntry(["node"])).toBeUndefined();
  });
});
