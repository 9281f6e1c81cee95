// `openclaw ocw checkpoint save|list|restore` and `openclaw ocw run start|label|close|list`: the
// operator's checkpoints and run records from a terminal (seed 001, issues #11, #30). A plugin CLI command runs in the CLI process, not in the gateway that hosts the world,
// so it goes through the same door as curl: the running gateway's operator route, with the gateway's
// operator token (the gateway checks it; the plugin never sees it). URL and token come from the
// options, else the environment and the config the CLI reads, like the gateway's own commands.
import type { OpenClawPluginApi } from "openclaw/plugin-sdk/plugin-entry";
import { OPERATOR_ROUTE } from "../http/operator-routes.ts";

type CliContext = Parameters<Parameters<OpenClawPluginApi["registerCli"]>[0]>[0];

interface GatewayOptions {
  url?: string;
  token?: string;
}

/** Where the running gateway is and how to authenticate as its operator. */
export function operatorTarget(
  options: GatewayOptions,
  config: { gateway?: { port?: unknown; auth?: { token?: unknown } } } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): { baseUrl: string; token: string | undefined } {
  const port = env.OPENCLAW_GATEWAY_PORT ?? (config?.gateway?.port as number | undefined) ?? 18789;
  const configToken = config?.gateway?.auth?.token;
  return {
    baseUrl: (options.url ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ""),
    token:
      options.token ??
      env.OPENCLAW_GATEWAY_TOKEN ??
      (typeof configToken === "string" ? configToken : undefined),
  };
}

/** One operator request; the answer's `data` on success, a plain-words Error otherwise. */
export async function operatorCall(
  target: { baseUrl: string; token: string | undefined },
  method: "GET" | "POST",
  route: string,
  body?: unknown,
): Promise<unknown> {
  if (!target.token)
    throw new Error("no gateway token: pass --token or set OPENCLAW_GATEWAY_TOKEN (or gateway.auth.token)");
  let res: Response;
  try {
    res = await fetch(`${target.baseUrl}${OPERATOR_ROUTE}${route}`, {
      method,
      headers: { authorization: `Bearer ${target.token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
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
  if (answer?.status === "ok") return answer.data;
  if (answer?.error)
    throw new Error(`${answer.error.code ?? "error"}: ${answer.error.message ?? `HTTP ${res.status}`}`);
  throw new Error(
    `unexpected answer from ${target.baseUrl} (HTTP ${res.status}); is the openclawworld plugin running there?`,
  );
}

export function registerWorldCli(api: OpenClawPluginApi): void {
  api.registerCli(
    ({ program, config }: CliContext) => {
      const ocw = program.command("ocw").description("OpenClawWorld: operate the world of a running gateway");
      const checkpoint = ocw
        .command("checkpoint")
        .description("Save, list and restore named checkpoints of the running world");
      const run = async (
        options: GatewayOptions,
        what: (target: ReturnType<typeof operatorTarget>) => Promise<unknown>,
      ) => {
        try {
          const data = await what(operatorTarget(options, config));
          process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
        } catch (error) {
          process.stderr.write(`openclaw ocw: ${(error as Error).message}\n`);
          process.exitCode = 1;
        }
      };
      const gatewayOptions = [
        ["--url <url>", "gateway base URL (default http://127.0.0.1:<gateway port>)"],
        ["--token <token>", "gateway operator token (default $OPENCLAW_GATEWAY_TOKEN)"],
      ] as const;
      const list = checkpoint.command("list").description("List checkpoints: label, tick, sim time, hash");
      const save = checkpoint
        .command("save")
        .argument("<label>", "name, [A-Za-z0-9._-]{1,64}")
        .description("Save the running world as a named checkpoint");
      const restore = checkpoint
        .command("restore")
        .argument("<label>", "a saved checkpoint")
        .description("Restore a checkpoint into the running world");
      const notes = ocw.command("notes").description("Review and take down notes on the notice boards");
      const notesList = notes.command("list").description("List every board's notes: id, author, text");
      const notesRemove = notes
        .command("remove")
        .argument("<objectId>", "the board, e.g. obj_board_square")
        .argument("<noteId>", "the note, e.g. n3")
        .description("Take a note down");
      const runs = ocw
        .command("run")
        .description("Record bounded runs: start, label and close; manifests for replay tooling");
      const runStart = runs
        .command("start")
        .argument("<label>", "name, [A-Za-z0-9._-]{1,64}")
        .description("Start a run at the current tick");
      const runLabel = runs
        .command("label")
        .argument("<id>", "a run")
        .argument("<label>", "its new name")
        .description("Relabel a run");
      const runClose = runs.command("close").argument("<id>", "the open run").description("End a run now");
      const runList = runs
        .command("list")
        .description("List runs: label, start/end ticks, scene hash, checkpoints");
      runStart.action((label: string, options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "POST", "/runs", { label })),
      );
      runLabel.action((id: string, label: string, options: GatewayOptions) =>
        run(options, (target) =>
          operatorCall(target, "POST", `/runs/${encodeURIComponent(id)}/label`, { label }),
        ),
      );
      runClose.action((id: string, options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "POST", `/runs/${encodeURIComponent(id)}/close`)),
      );
      runList.action((options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "GET", "/runs")),
      );
      for (const command of [
        list,
        save,
        restore,
        notesList,
        notesRemove,
        runStart,
        runLabel,
        runClose,
        runList,
      ])
        for (const [flags, description] of gatewayOptions) command.option(flags, description);
      notesList.action((options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "GET", "/notes")),
      );
      notesRemove.action((objectId: string, noteId: string, options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "POST", "/notes/remove", { objectId, noteId })),
      );
      list.action((options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "GET", "/checkpoints")),
      );
      save.action((label: string, options: GatewayOptions) =>
        run(options, (target) => operatorCall(target, "POST", "/checkpoints", { label })),
      );
      restore.action((label: string, options: GatewayOptions) =>
        run(options, (target) =>
          operatorCall(target, "POST", `/checkpoints/${encodeURIComponent(label)}/restore`),
        ),
      );
    },
    {
      descriptors: [
        { name: "ocw", description: "OpenClawWorld: operate the running world", hasSubcommands: true },
      ],
    },
  );
}
