// `openclaw ocw ...` parsed by commander (the parser the gateway hands a plugin's CLI) against a
// recording server on 127.0.0.1: each command reaches the operator route it names, with its body.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runOcw } from "../../test/support/ocw-cli.ts";
import { OPERATOR_ROUTE } from "../http/operator-routes.ts";

const SNAPSHOT = {
  format: "openclawworld.snapshot.v1",
  tick: 7,
  time: 350,
  sceneHash: "abc",
  state: { x: 1 },
};
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
      // GET /snapshot answers the saved document itself; every other route {status, data}.
      res.end(
        JSON.stringify(
          req.url?.endsWith("/snapshot") ? SNAPSHOT : { status: "ok", data: { answered: req.url } },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const ocw = (...args: string[]) => runOcw(url, "tok", ...args);

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
    [["access", "list"], "GET", "/access", ""],
    [["access", "show", "agent_helper"], "GET", "/access/agent_helper", ""],
    [["wake", "list"], "GET", "/wake-targets", ""],
    [
      ["wake", "set", "agent_helper", '{"target":{"kind":"webhook"}}'],
      "POST",
      "/wake-targets/agent_helper",
      '{"target":{"kind":"webhook"}}',
    ],
    [["wake", "remove", "agent_helper"], "POST", "/wake-targets/agent_helper/remove", ""],
    [["replay", "list"], "GET", "/replay", ""],
    [["replay", "link"], "POST", "/replay/link", ""],
    [["replay", "turns", "keeper"], "GET", "/replay/turns?agent=keeper&lastMinutes=10", ""],
    [["replay", "turns", "agent x", "3"], "GET", "/replay/turns?agent=agent%20x&lastMinutes=3", ""],
    [["follow", "link", "agent_helper"], "POST", "/follow/link", '{"agentId":"agent_helper"}'],
    [["follow", "link", "keeper", "2"], "POST", "/follow/link", '{"agentId":"keeper","hours":2}'],
    [["follow", "keeper"], "POST", "/follow/link", '{"agentId":"keeper"}'],
    [["follow", "keeper", "3"], "POST", "/follow/link", '{"agentId":"keeper","hours":3}'],
    [["follow", "list"], "GET", "/follow/links", ""],
    [["follow", "list", "agent x"], "GET", "/follow/links?agentId=agent%20x", ""],
    [["follow", "revoke", "keeper"], "POST", "/follow/revoke", '{"agentId":"keeper"}'],
    [
      ["follow", "revoke", "keeper", "fl_1"],
      "POST",
      "/follow/revoke",
      '{"agentId":"keeper","linkId":"fl_1"}',
    ],
  ])("%j is %s %s", async (args, method, route, body) => {
    seen.length = 0;
    const printed = await ocw(...args);
    expect(seen).toEqual([{ method, url: `${OPERATOR_ROUTE}${route}`, auth: "Bearer tok", body }]);
    expect(JSON.parse(printed)).toEqual({ answered: `${OPERATOR_ROUTE}${route}` });
  });
});

describe("openclaw ocw snapshot (issue #39)", () => {
  it("save writes the document GET /snapshot answers to a file; load posts that file's bytes back", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-cli-"));
    try {
      const file = path.join(dir, "saved.json");
      seen.length = 0;
      const printed = await ocw("snapshot", "save", file);
      expect(seen).toEqual([
        { method: "GET", url: `${OPERATOR_ROUTE}/snapshot`, auth: "Bearer tok", body: "" },
      ]);
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(SNAPSHOT);
      expect(JSON.parse(printed)).toMatchObject({ file, format: SNAPSHOT.format, tick: 7 });
      seen.length = 0;
      await ocw("snapshot", "load", file);
      expect(seen).toEqual([
        {
          method: "POST",
          url: `${OPERATOR_ROUTE}/load`,
          auth: "Bearer tok",
          body: readFileSync(file, "utf8"),
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("openclaw ocw finds the gateway (issue #52)", () => {
  it("npm start's from its state folder, unless told otherwise", async () => {
    const { npmStartGateway, operatorTarget } = await import("./operator-cli.ts");
    const dir = mkdtempSync(path.join(os.tmpdir(), "ocw-cli-state-"));
    try {
      const none = npmStartGateway({ OCW_STATE_DIR: dir });
      expect(none).toEqual({});
      expect(operatorTarget({}, undefined, {}, () => none)).toEqual({
        baseUrl: "http://127.0.0.1:18789",
        token: undefined,
      });
      writeFileSync(path.join(dir, "gateway-url"), "http://127.0.0.1:19999\n");
      writeFileSync(path.join(dir, "gateway-token"), "kept-token\n");
      const started = npmStartGateway({ OCW_STATE_DIR: dir });
      expect(started).toEqual({ url: "http://127.0.0.1:19999", token: "kept-token" });
      // .openclaw-dev in the working directory when OCW_STATE_DIR is not set.
      expect(npmStartGateway({}, path.dirname(dir))).toEqual({});
      expect(operatorTarget({}, undefined, {}, () => started)).toEqual({
        baseUrl: "http://127.0.0.1:19999",
        token: "kept-token",
      });
      // --url, a port or a token in the environment win.
      expect(operatorTarget({ url: "http://h:1/" }, undefined, {}, () => started).baseUrl).toBe("http://h:1");
      expect(operatorTarget({}, undefined, { OPENCLAW_GATEWAY_PORT: "2" }, () => started).baseUrl).toBe(
        "http://127.0.0.1:2",
      );
      expect(operatorTarget({}, undefined, { OPENCLAW_GATEWAY_TOKEN: "env" }, () => started).token).toBe(
        "env",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("openclaw ocw follow <agentId> (issue #52)", () => {
  it("reads its words as the link command's arguments and the gateway options", async () => {
    const { gatewayWords } = await import("./operator-cli.ts");
    expect(gatewayWords(["a", "--url", "http://h", "2", "--token=t"])).toEqual({
      args: ["a", "2"],
      options: { url: "http://h", token: "t" },
    });
    expect(gatewayWords(["a", "--url"])).toBe("--url needs a value");
    expect(gatewayWords(["a", "--nope"])).toBe("unknown option --nope");
    await expect(ocw("follow")).rejects.toThrow(/usage: openclaw ocw follow <agentId>/);
  });
});
