// A scripted stand-in for an LLM: a small server on 127.0.0.1 speaking the three wire formats a user's
// model may (OpenAI chat completions, Anthropic messages, Gemini generateContent: model-wires.ts) that
// the real gateway calls as its model provider, so tests drive real agent turns (the gateway's agent
// loop, tool list, before_tool_call policy, tool results) with no network and no model.
//
// Scenarios are data. A scenario is a name and a list of steps; each step is the model's reply to one
// call: tool calls, text, or an HTTP failure (`fail: 500`, `fail: 429`). A request picks its scenario by a marker anywhere in its messages,
// `ocw-scenario:<name>` (usually in the user's message; the last message carrying one wins, and within
// a message its last marker: a resident's wake prompt quotes what people said, newest last), and its
// step by how many assistant replies follow that message: the first call of a turn gets step 0, the
// call after the first tool results step 1, and so on. The choice depends on the request alone, so
// retries, parallel turns and sessions never disturb each other. Past the last step, and for a request
// without a marker, the model answers the text `done`.
//
//   const model = await startScriptedModel();
//   model.define("status-once", [{ toolCalls: [{ name: "ocw_status", arguments: {} }] }, { text: "ok" }]);
//   // gateway config: model.providerConfig() (providers + agents.defaults.model)
//   // ... POST /v1/chat/completions with a user message "ocw-scenario:status-once ..."
//   model.requests("status-once")   // every call the gateway made for it, in order
//
// A step's tool call names a tool as the model would see it. When the request does not offer that
// tool as a definition but offers the gateway's Tool Search caller (`tool_call`), the call is sent
// through it (`{id: <tool name>, args}`), as a model in that mode must; `via: "direct"` turns that off.
//
// Other processes (Vitest's global setup starts the server, test files run elsewhere) use the same
// operations over HTTP on the server itself:
//   PUT  /scenarios/<name>        body: Step[]          define or replace a scenario
//   GET  /requests?scenario=<n>   -> RecordedRequest[]  what the gateway sent (all when no scenario)
// Answers stream (server-sent events in the request's format) when the request asks for it (`stream:
// true`, or Gemini's `:streamGenerateContent`), as the gateway's providers do, and are one JSON object
// otherwise. providerConfig() names three providers on this one server, one per format:
// `scripted` (openai-completions, every agent's default), `scripted-anthropic` (anthropic-messages)
// and `scripted-gemini` (google-generative-ai); an agent takes another with `agents.entries.<id>.model`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatMessage,
  type ChatRequest,
  readRequest,
  type Wire,
  wireOf,
  writeAnswer,
  writeFailure,
} from "./model-wires.ts";

export interface ToolCallStep {
  toolCalls: { name: string; arguments: Record<string, unknown>; via?: "auto" | "direct" }[];
  /** Answer this long after the request arrived (a model that takes its time). */
  delayMs?: number;
  /** "per-response": number the calls call_0, call_1... in every response, as many providers and
   * local servers do (ids then repeat across responses and turns). Default: unique ids. */
  ids?: "unique" | "per-response";
  /** The last step answers every later call too: a model that never stops calling tools. */
  repeat?: boolean;
}
export interface TextStep {
  text: string;
  delayMs?: number;
  repeat?: boolean;
}
export interface FailureStep {
  /** Answer with this HTTP status (e.g. 500, or 429 with Retry-After: 1) and the format's error body. */
  fail: number;
  message?: string;
  delayMs?: number;
  repeat?: boolean;
}
export type Step = ToolCallStep | TextStep | FailureStep;

export type { ChatMessage, ChatRequest, Wire } from "./model-wires.ts";

export interface RecordedRequest {
  /** Order of arrival, from 0. */
  index: number;
  path: string;
  /** The format the request came in (its body is read into the OpenAI shape whatever it was). */
  wire: Wire;
  scenario: string | undefined;
  step: number;
  body: ChatRequest;
  /** What the model answered. */
  reply: Step;
  /** Wall-clock (Date.now) when the request arrived and when its answer was sent. */
  receivedAtMs: number;
  answeredAtMs: number;
}

export const SCENARIO_MARKER = /\bocw-scenario:([A-Za-z0-9_.-]+)/g;
export const MODEL_ID = "scripted-1";
export const PROVIDER_ID = "scripted";
/** The Tool Search caller's name in openclaw 2026.9.6. */
export const TOOL_SEARCH_CALLER = "tool_call";

/** The text of a message's content: a string, or the text parts of an array of parts. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : "",
      )
      .join("\n");
  }
  return "";
}

/** Which scenario and step a request asks for (see the header). */
export function pickStep(request: ChatRequest): { scenario: string | undefined; step: number } {
  const messages = request.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const match = [...messageText(messages[i]?.content).matchAll(SCENARIO_MARKER)].at(-1);
    if (match) {
      const step = messages.slice(i + 1).filter((m) => m.role === "assistant").length;
      return { scenario: match[1], step };
    }
  }
  return { scenario: undefined, step: 0 };
}

/** The tool results the conversation holds so far, oldest first (what earlier tool calls returned). */
export function toolResults(request: ChatRequest): { toolCallId: string | undefined; text: string }[] {
  return (request.messages ?? [])
    .filter((m) => m.role === "tool")
    .map((m) => ({ toolCallId: m.tool_call_id, text: messageText(m.content) }));
}

/** The names of the tools a request offers the model as definitions. */
export function offeredTools(request: ChatRequest): string[] {
  return (request.tools ?? []).map((t) => t.function?.name).filter((n): n is string => !!n);
}

let callCounter = 0;

function toolCallsFor(step: ToolCallStep, request: ChatRequest): NonNullable<ChatMessage["tool_calls"]> {
  const offered = new Set(offeredTools(request));
  return step.toolCalls.map((call, index) => {
    const viaSearch = call.via !== "direct" && !offered.has(call.name) && offered.has(TOOL_SEARCH_CALLER);
    const fn = viaSearch
      ? { name: TOOL_SEARCH_CALLER, arguments: JSON.stringify({ id: call.name, args: call.arguments }) }
      : { name: call.name, arguments: JSON.stringify(call.arguments) };
    callCounter += 1;
    const id = step.ids === "per-response" ? `call_${index}` : `call_${callCounter}`;
    return { id, type: "function", function: fn };
  });
}

export interface ScriptedModel {
  /** e.g. http://127.0.0.1:41234/v1 (the provider's baseUrl). */
  baseUrl: string;
  /** e.g. http://127.0.0.1:41234 (the control endpoints). */
  origin: string;
  define(name: string, steps: Step[]): void;
  requests(scenario?: string): RecordedRequest[];
  /** Gateway config that makes this server every agent's model (merge it into the gateway config). */
  providerConfig(): Record<string, unknown>;
  close(): Promise<void>;
}

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scenarios = new Map<string, Step[]>();
  const recorded: RecordedRequest[] = [];

  /** The step answering call `step` of `scenario`: past the last, the last again if it repeats. */
  const stepOf = (scenario: string | undefined, step: number): Step | undefined => {
    const steps = scenario ? scenarios.get(scenario) : undefined;
    const last = steps?.at(-1);
    return steps?.[step] ?? (last?.repeat ? last : undefined);
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const complete = (
    req: IncomingMessage,
    res: ServerResponse,
    wire: Wire,
    request: ChatRequest,
    receivedAtMs: number,
  ) => {
    const { scenario, step } = pickStep(request);
    const reply: Step = stepOf(scenario, step) ?? { text: "done" };
    recorded.push({
      index: recorded.length,
      path: req.url ?? "",
      wire,
      scenario,
      step,
      body: request,
      reply,
      receivedAtMs,
      answeredAtMs: Date.now(),
    });
    // A turn cut short (its timeout) has closed the connection: nothing is left to answer.
    if (res.destroyed) return;
    if ("fail" in reply) {
      writeFailure(res, wire, reply.fail, reply.message ?? `scripted failure ${reply.fail}`);
      return;
    }
    const answer = "toolCalls" in reply ? { toolCalls: toolCallsFor(reply, request) } : { text: reply.text };
    writeAnswer(res, wire, request, answer, recorded.length);
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => {
      try {
        const wire = req.method === "POST" ? wireOf(url.pathname) : undefined;
        if (wire) {
          const receivedAtMs = Date.now();
          const request = readRequest(wire, JSON.parse(raw) as Record<string, unknown>, url.pathname);
          const { scenario, step } = pickStep(request);
          const delayMs = stepOf(scenario, step)?.delayMs ?? 0;
          const answer = () => {
            try {
              complete(req, res, wire, request, receivedAtMs);
            } catch (error) {
              json(res, 500, { error: { message: error instanceof Error ? error.message : String(error) } });
            }
          };
          if (delayMs > 0) setTimeout(answer, delayMs);
          else answer();
        } else if (req.method === "GET" && url.pathname.endsWith("/models")) {
          json(res, 200, { object: "list", data: [{ id: MODEL_ID, object: "model", owned_by: "tests" }] });
        } else if (req.method === "PUT" && url.pathname.startsWith("/scenarios/")) {
          const name = decodeURIComponent(url.pathname.slice("/scenarios/".length));
          const steps = JSON.parse(raw) as Step[];
          if (!Array.isArray(steps)) throw new Error("a scenario is an array of steps");
          scenarios.set(name, steps);
          json(res, 200, { ok: true });
        } else if (req.method === "GET" && url.pathname === "/requests") {
          const scenario = url.searchParams.get("scenario") ?? undefined;
          json(res, 200, scenario ? recorded.filter((r) => r.scenario === scenario) : recorded);
        } else {
          json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
        }
      } catch (error) {
        json(res, 400, { error: { message: error instanceof Error ? error.message : String(error) } });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    define(name, steps) {
      scenarios.set(name, steps);
    },
    requests(scenario) {
      return scenario ? recorded.filter((r) => r.scenario === scenario) : [...recorded];
    },
    providerConfig() {
      return scriptedProviderConfig(`${origin}/v1`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The provider ids of the three formats, as models.providers keys (the model is MODEL_ID in each). */
export const FORMAT_PROVIDERS = {
  openai: PROVIDER_ID,
  anthropic: `${PROVIDER_ID}-anthropic`,
  gemini: `${PROVIDER_ID}-gemini`,
} as const;

const scriptedModels = [
  { id: MODEL_ID, name: "Scripted model (tests)", contextWindow: 128_000, maxTokens: 4096, input: ["text"] },
];

/** Gateway config naming the scripted server at `baseUrl` (its `/v1`) as the provider of each format
 * and the openai-completions one as every agent's model. */
export function scriptedProviderConfig(baseUrl: string): Record<string, unknown> {
  const origin = baseUrl.replace(/\/v1\/?$/, "");
  const provider = (api: string, url: string) => ({
    api,
    baseUrl: url,
    apiKey: "scripted-model-needs-no-key",
    models: scriptedModels,
  });
  return {
    models: {
      providers: {
        [FORMAT_PROVIDERS.openai]: provider("openai-completions", baseUrl),
        // The Anthropic SDK appends /v1/messages to its base URL.
        [FORMAT_PROVIDERS.anthropic]: provider("anthropic-messages", origin),
        // Gemini's requests go to <baseUrl>/models/<model>:streamGenerateContent?alt=sse.
        [FORMAT_PROVIDERS.gemini]: provider("google-generative-ai", `${origin}/v1beta`),
      },
    },
    agents: { defaults: { model: { primary: `${PROVIDER_ID}/${MODEL_ID}` } } },
  };
}

/** The same operations from another process, through the server's control endpoints. */
export function scriptedModelClient(origin: string) {
  return {
    async define(name: string, steps: Step[]): Promise<void> {
      const res = await fetch(`${origin}/scenarios/${encodeURIComponent(name)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(steps),
      });
      if (!res.ok) throw new Error(`defining scenario ${name}: ${res.status} ${await res.text()}`);
    },
    async requests(scenario?: string): Promise<RecordedRequest[]> {
      const query = scenario ? `?scenario=${encodeURIComponent(scenario)}` : "";
      return (await (await fetch(`${origin}/requests${query}`)).json()) as RecordedRequest[];
    },
  };
}
