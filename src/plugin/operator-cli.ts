// `openclaw ocw checkpoint save|list|restore`, `ocw snapshot save|load`, `ocw access list|show`,
// `ocw notes list|remove`, `ocw run start|label|close|list`, `ocw wake list|set|remove` and
// `ocw replay list|link`: the operator's checkpoints, saved
// worlds, agents' access records, notice boards and run records from a terminal (seed 001), one row
// each in OPERATOR_COMMANDS. A plugin CLI command runs in the
// CLI process, not in the gateway that hosts the world, so it goes through the same door as curl: the running gateway's operator route, with the gateway's
// operator token (the gateway checks it; the plugin never sees it). URL and token come from the
// options, else the environment and the config the CLI reads, like the gateway's own commands.
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { OPERATOR_ROUTE } from "../http/operator-routes.ts";

type CliContext = Parameters<Parameters<OpenClawPluginApi["registerCli"]>[0]>[0];

interface GatewayOptions {
  url?: string;
  token?: string;
}

/** The gateway `npm start` runs from this checkout, as its state folder records it (scripts/start.ts:
 * `gateway-url`, and the `gateway-token` it generated): `OCW_STATE_DIR`, else `.openclaw-dev` here. */
export function npmStartGateway(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): { url?: string; token?: string } {
  const dir = path.resolve(env.OCW_STATE_DIR || path.join(cwd, ".openclaw-dev"));
  const read = (name: string) => {
    try {
      return readFileSync(path.join(dir, name), "utf8").trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const url = read("gateway-url");
  const token = read("gateway-token");
  return { ...(url ? { url } : {}), ...(token ? { token } : {}) };
}

/** Where the running gateway is and how to authenticate as its operator: the options, else the
 * environment, else the gateway `npm start` runs from here, else the config the CLI reads. */
export function operatorTarget(
  options: GatewayOptions,
  config: { gateway?: { port?: unknown; auth?: { token?: unknown } } } | undefined,
  env: NodeJS.ProcessEnv = process.env,
  npmStart: () => { url?: string; token?: string } = () => npmStartGateway(env),
): { baseUrl: string; token: string | undefined } {
  const configToken = config?.gateway?.auth?.token;
  const started = options.url || env.OPENCLAW_GATEWAY_PORT ? {} : npmStart();
  const port = env.OPENCLAW_GATEWAY_PORT ?? (config?.gateway?.port as number | undefined) ?? 18789;
  return {
    baseUrl: (options.url ?? started.url ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ""),
    token:
      options.token ??
      env.OPENCLAW_GATEWAY_TOKEN ??
      (started.url ? started.token : undefined) ??
      (typeof configToken === "string" ? configToken : undefined),
  };
}

/** One operator request; the answer's `data` on success (the whole answer for a route that answers
 * a document, not `{status, data}`: `raw`), a plain-words Error otherwise. A string body is sent as
 * it is (a saved world goes back byte for byte). */
export async function operatorCall(
  target: { baseUrl: string; token: string | undefined },
  method: "GET" | "POST",
  route: string,
  body?: unknown,
  options: { raw?: boolean } = {},
): Promise<unknown> {
  if (!target.token)
    throw new Error("no gateway token: pass --token or set OPENCLAW_GATEWAY_TOKEN (or gateway.auth.token)");
  let res: Response;
  try {
    res = await fetch(`${target.baseUrl}${OPERATOR_ROUTE}${route}`, {
      method,
      headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new Error(`the gateway at ${target.baseUrl} is not reachable (${(error as Error).message})`);
  }
  const text = await res.text();
  let answer: { status?: string; data?: unknown; error?: { code?: string; message?: string } } | undefined;
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    answer = undefined;
  }
  if (res.status === 401 || res.status === 403)
    throw new Error(`the gateway refused the operator token (HTTP ${res.status})`);
  if (options.raw && res.ok && answer !== undefined) return answer;
  if (answer?.status === "ok") return answer.data;
  if (answer?.error)
    throw new Error(`${answer.error.code ?? "error"}: ${answer.error.message ?? `HTTP ${res.status}`}`);
  throw new Error(
    `unexpected answer from ${target.baseUrl} (HTTP ${res.status}); is the openclawworld plugin running there?`,
  );
}

type Request = { method: "GET" | "POST"; route: string; body?: unknown; raw?: boolean };

/** One `openclaw ocw <group> <name> <args...>` command: its arguments, the operator request they
 * make, and what is done with the answer (printed as JSON unless `deliver` says otherwise). */
interface OperatorCommand {
  group: keyof typeof GROUPS;
  name: string;
  description: string;
  args?: readonly (readonly [spec: string, description: string])[];
  request: (...args: string[]) => Request | Promise<Request>;
  deliver?: (data: unknown, ...args: string[]) => Promise<unknown>;
}

const GROUPS = {
  checkpoint: "Save, list and restore named checkpoints of the running world",
  snapshot: "Save the running world to a file, and load a saved file back",
  access: "What an AIC agent needs to reach the world (seed 001 api_access): base URL, headers, endpoints",
  notes: "Review and take down notes on the notice boards",
  run: "Record bounded runs: start, label and close; manifests for replay tooling",
  wake: "Wake targets: AIC agents outside this gateway the world wakes (a webhook, another gateway's /hooks/wake)",
  follow:
    "Links for an agent's owner to its follow page: what it sees, perceives and does, live (docs/follow.md)",
  world:
    "The world's definition: load its directory again into the running world (docs/configuration.md, watchWorld)",
  replay:
    "Watch any stretch of the world again: what is kept, a link to the replay page, an agent's turns, export and open a stretch",
};

const LABEL_ARG = ["<label>", "name, [A-Za-z0-9._-]{1,64}"] as const;
const at = encodeURIComponent;

const OPERATOR_COMMANDS: readonly OperatorCommand[] = [
  {
    group: "world",
    name: "reload",
    description:
      "Load the world directory again into the running world (refused, with the file and line, when it does not load)",
    request: () => ({ method: "POST", route: "/world/reload" }),
  },
  {
    group: "checkpoint",
    name: "list",
    description: "List checkpoints: label, tick, sim time, hash",
    request: () => ({ method: "GET", route: "/checkpoints" }),
  },
  {
    group: "checkpoint",
    name: "save",
    description: "Save the running world as a named checkpoint",
    args: [LABEL_ARG],
    request: (label) => ({ method: "POST", route: "/checkpoints", body: { label } }),
  },
  {
    group: "checkpoint",
    name: "restore",
    description: "Restore a checkpoint into the running world",
    args: [["<label>", "a saved checkpoint"]],
    request: (label) => ({ method: "POST", route: `/checkpoints/${at(label!)}/restore` }),
  },
  {
    group: "snapshot",
    name: "save",
    description: "Write the running world's snapshot to a file (the document GET /snapshot answers)",
    args: [["<file>", "where to write it"]],
    request: () => ({ method: "GET", route: "/snapshot", raw: true }),
    deliver: async (data, file) => {
      await writeFile(file!, JSON.stringify(data));
      const saved = data as { format?: string; tick?: number; time?: number; sceneHash?: string };
      return { file, format: saved.format, tick: saved.tick, time: saved.time, sceneHash: saved.sceneHash };
    },
  },
  {
    group: "snapshot",
    name: "load",
    description: "Restore a saved snapshot file into the running world (same world only)",
    args: [["<file>", "a file written by snapshot save or GET /snapshot"]],
    request: async (file) => ({ method: "POST", route: "/load", body: await readFile(file!, "utf8") }),
  },
  {
    group: "access",
    name: "list",
    description: "Every AIC agent's access record",
    request: () => ({ method: "GET", route: "/access" }),
  },
  {
    group: "access",
    name: "show",
    description: "One AIC agent's access record",
    args: [["<agentId>", "a configured AIC agent"]],
    request: (agentId) => ({ method: "GET", route: `/access/${at(agentId!)}` }),
  },
  {
    group: "notes",
    name: "list",
    description: "List every board's notes: id, author, text",
    request: () => ({ method: "GET", route: "/notes" }),
  },
  {
    group: "notes",
    name: "remove",
    description: "Take a note down",
    args: [
      ["<objectId>", "the board, e.g. obj_board_square"],
      ["<noteId>", "the note, e.g. n3"],
    ],
    request: (objectId, noteId) => ({ method: "POST", route: "/notes/remove", body: { objectId, noteId } }),
  },
  {
    group: "run",
    name: "start",
    description: "Start a run at the current tick",
    args: [LABEL_ARG],
    request: (label) => ({ method: "POST", route: "/runs", body: { label } }),
  },
  {
    group: "run",
    name: "label",
    description: "Relabel a run",
    args: [
      ["<id>", "a run"],
      ["<label>", "its new name"],
    ],
    request: (id, label) => ({ method: "POST", route: `/runs/${at(id!)}/label`, body: { label } }),
  },
  {
    group: "run",
    name: "close",
    description: "End a run now",
    args: [["<id>", "the open run"]],
    request: (id) => ({ method: "POST", route: `/runs/${at(id!)}/close` }),
  },
  {
    group: "run",
    name: "list",
    description: "List runs: label, start/end ticks, scene hash, checkpoints",
    request: () => ({ method: "GET", route: "/runs" }),
  },
  {
    group: "wake",
    name: "list",
    description: "List wake targets (secrets and hook tokens are not shown)",
    request: () => ({ method: "GET", route: "/wake-targets" }),
  },
  {
    group: "wake",
    name: "set",
    description: "Set an AIC agent's wake target (docs/wake-targets.md)",
    args: [
      ["<agentId>", "a configured AIC agent"],
      ["<target>", "the target as JSON, or a file holding it"],
    ],
    request: async (agentId, target) => ({
      method: "POST",
      route: `/wake-targets/${at(agentId!)}`,
      body: target!.trim().startsWith("{") ? target! : await readFile(target!, "utf8"),
    }),
  },
  {
    group: "wake",
    name: "remove",
    description: "Stop waking an AIC agent",
    args: [["<agentId>", "an agent with a wake target"]],
    request: (agentId) => ({ method: "POST", route: `/wake-targets/${at(agentId!)}/remove` }),
  },
  {
    group: "replay",
    name: "list",
    description: "What the replay history holds: rooms, timelines and keyframes, runs, checkpoints, sizes",
    request: () => ({ method: "GET", route: "/replay" }),
  },
  {
    group: "replay",
    name: "link",
    description: "A link to the replay page for this operator (its own key, valid 12 hours)",
    request: () => ({ method: "POST", route: "/replay/link" }),
  },
  {
    group: "replay",
    name: "export",
    description:
      "Write a stretch to one file (keyframe, every tick's inputs, the agents' turns, a run record) for another gateway of this world",
    args: [
      ["<file>", "where to write it"],
      ["[minutes]", "the last N minutes (default 10)"],
    ],
    request: (_file, minutes) => ({
      method: "GET",
      route: `/replay/export?lastMinutes=${at(minutes ?? "10")}`,
    }),
    deliver: async (data, file) => {
      await writeFile(file!, JSON.stringify(data));
      const { format, world, run } = data as { format?: string; world?: string; run?: unknown };
      return { file, format, world, run };
    },
  },
  {
    group: "replay",
    name: "open",
    description:
      "Open an exported file here (checked: same world, every tick re-simulated): a replay page link showing it",
    args: [["<file>", "a file written by replay export (or the page's Export)"]],
    request: async (file) => ({ method: "POST", route: "/replay/open", body: await readFile(file!, "utf8") }),
  },
  {
    group: "replay",
    name: "turns",
    description:
      "An agent's or resident's turns of the last minutes: what it was shown, what it did and was answered, what woke it",
    args: [
      ["<agentId>", "an agent or resident"],
      ["[minutes]", "how far back (default 10)"],
    ],
    request: (agentId, minutes) => ({
      method: "GET",
      route: `/replay/turns?agent=${at(agentId!)}&lastMinutes=${at(minutes ?? "10")}`,
    }),
  },
  {
    group: "follow",
    name: "link",
    description:
      "A link to one agent's follow page for its owner (that agent only; it expires, and can be revoked)",
    args: [
      ["<agentId>", "an AIC agent, a resident or a gateway agent"],
      ["[hours]", "how long it lives (default 24, at most 168)"],
    ],
    request: (agentId, hours) => ({
      method: "POST",
      route: "/follow/link",
      body: { agentId, ...(hours === undefined ? {} : { hours: Number(hours) }) },
    }),
  },
  {
    group: "follow",
    name: "list",
    description: "The follow links alive (their ids and ends, never their keys)",
    args: [["[agentId]", "one agent's only"]],
    request: (agentId) => ({
      method: "GET",
      route: `/follow/links${agentId === undefined ? "" : `?agentId=${at(agentId)}`}`,
    }),
  },
  {
    group: "follow",
    name: "revoke",
    description: "Revoke an agent's follow links (or one of them)",
    args: [
      ["<agentId>", "whose links"],
      ["[linkId]", "only this one (fl_...)"],
    ],
    request: (agentId, linkId) => ({
      method: "POST",
      route: "/follow/revoke",
      body: { agentId, ...(linkId === undefined ? {} : { linkId }) },
    }),
  },
];

/** A group whose own name runs one of its commands: `ocw follow <agentId>` mints a follow link. */
const GROUP_DEFAULTS: Partial<Record<keyof typeof GROUPS, string>> = { follow: "link" };

/** A group default's words: its arguments and the gateway options (`--url x`, `--url=x`), or what
 * is wrong with them. */
export function gatewayWords(words: string[]): { args: string[]; options: GatewayOptions } | string {
  const args: string[] = [];
  const options: GatewayOptions = {};
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const option = /^--(url|token)(?:=(.*))?$/.exec(word);
    if (option) {
      const value = option[2] ?? words[++i];
      if (value === undefined) return `--${option[1]} needs a value`;
      options[option[1] as "url" | "token"] = value;
    } else if (word.startsWith("-")) return `unknown option ${word}`;
    else args.push(word);
  }
  return { args, options };
}

const GATEWAY_OPTIONS = [
  [
    "--url <url>",
    "gateway base URL (default: the one npm start runs from here, else http://127.0.0.1:<gateway port>)",
  ],
  [
    "--token <token>",
    "gateway operator token (default $OPENCLAW_GATEWAY_TOKEN, else the one npm start runs with)",
  ],
] as const;

export function registerWorldCli(api: OpenClawPluginApi): void {
  api.registerCli(
    ({ program, config }: CliContext) => {
      const ocw = program.command("ocw").description("OpenClawWorld: operate the world of a running gateway");
      const groups = new Map(
        Object.entries(GROUPS).map(([name, description]) => [
          name,
          ocw.command(name).description(description),
        ]),
      );
      const run = async (spec: OperatorCommand, args: string[], options: GatewayOptions) => {
        try {
          const { method, route, body, raw } = await spec.request(...args);
          const answer = await operatorCall(operatorTarget(options, config), method, route, body, {
            ...(raw ? { raw } : {}),
          });
          const data = spec.deliver ? await spec.deliver(answer, ...args) : answer;
          process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
        } catch (error) {
          process.stderr.write(`openclaw ocw: ${(error as Error).message}\n`);
          process.exitCode = 1;
        }
      };
      for (const spec of OPERATOR_COMMANDS) {
        const group = groups.get(spec.group)!;
        const command = group.command(spec.name).description(spec.description);
        for (const [argument, description] of spec.args ?? []) command.argument(argument, description);
        for (const [flags, description] of GATEWAY_OPTIONS) command.option(flags, description);
        // commander passes the arguments in order, then the options.
        command.action(async (...values: unknown[]) => {
          const args = values.slice(0, spec.args?.length ?? 0) as string[];
          await run(spec, args, values[args.length] as GatewayOptions);
        });
        if (GROUP_DEFAULTS[spec.group] !== spec.name) continue;
        // The group's own name runs it too (`ocw follow <agentId>`). Its words are read here: options
        // on the group itself would be taken from its other commands' (commander's parent options).
        const usage = (spec.args ?? []).map(([argument]) => argument).join(" ");
        group
          .argument("[words...]", `${usage} [--url <url>] [--token <token>]: as ${spec.name}`)
          .allowUnknownOption()
          .action(async (words: string[]) => {
            const read = gatewayWords(words);
            const least = (spec.args ?? []).filter(([argument]) => argument.startsWith("<")).length;
            if (typeof read === "string" || read.args.length < least) {
              process.stderr.write(
                `openclaw ocw: ${typeof read === "string" ? read : `usage: openclaw ocw ${spec.group} ${usage}`}\n`,
              );
              process.exitCode = 1;
              return;
            }
            await run(spec, read.args, read.options);
          });
      }
    },
    {
      descriptors: [
        { name: "ocw", description: "OpenClawWorld: operate the running world", hasSubcommands: true },
      ],
    },
  );
}
