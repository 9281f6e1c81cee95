// `openclaw ocw ...` parsed by commander (the parser the gateway hands a plugin's CLI) against a
// recording server on 127.0.0.1: each command reaches the operator route it names, with its body.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Command } from "commander";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OPERATOR_ROUTE } from "../http/operator-routes.ts";
import { registerWorldCli } from "./cli.ts";

const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ status: "ok", data: { answered: req.url } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

async function ocw(...args: string[]) {
  const program = new Command().exitOverride();
  let registrar: ((ctx: { program: Command; config: unknown }) => void) | undefined;
  registerWorldCli({
    registerCli: (r: typeof registrar) => {
      registrar = r;
    },
  } as unknown as OpenClawPluginApi);
  registrar!({ program, config: {} });
  const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  try {
    await program.parseAsync(["ocw", ...args, "--url", url, "--token", "tok"], { from: "user" });
    return String(out.mock.calls[0]?.[0]);
  } finally {
    out.mockRestore();
  }
}

describe("openclaw ocw", () => {
  it.each([
    [["checkpoint", "list"], "GET", "/checkpoints", ""],
    [["checkpoint", "save", "noon"], "POST", "/checkpoints", '{"label":"noon"}'],
    [["checkpoint", "restore", "a b"], "POST", "/checkpoints/a%20b/restore", ""],
    [["notes", "list"], "GET", "/notes", ""],
    [
      ["notes", "remove", "obj_board", "n3"],
      "POST",
      "/notes/remove",
      '{"objectId":"obj_board","noteId":"n3"}',
    ],
    [["run", "start", "trial"], "POST", "/runs", '{"label":"trial"}'],
    [["run", "label", "r/1", "second"], "POST", "/runs/r%2F1/label", '{"label":"second"}'],
    [["run", "close", "r1"], "POST", "/runs/r1/close", ""],
    [["run", "list"], "GET", "/runs", ""],
  ])("%j is %s %s", async (args, method, route, body) => {
    seen.length = 0;
    const printed = await ocw(...args);
    expect(seen).toEqual([{ method, url: `${OPERATOR_ROUTE}${route}`, auth: "Bearer tok", body }]);
    expect(JSON.parse(printed)).toEqual({ answered: `${OPERATOR_ROUTE}${route}` });
  });
});
