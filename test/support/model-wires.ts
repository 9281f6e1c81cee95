// The wire formats a user's model may speak, for the scripted model (scripted-model.ts): OpenAI chat
// completions, Anthropic messages and Gemini generateContent. Each format's request is read into one
// shape (OpenAI's: messages with roles, tool calls, tool results), so scenarios and steps are picked
// the same way whatever the wire; the reply is written back in the request's own format, streamed
// (server-sent events) when the request asks for it, as the gateway's providers do.
import type { ServerResponse } from "node:http";

export type Wire = "openai" | "anthropic" | "gemini";

export interface ToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

/** One model answer, in no format yet: tool calls, or text. */
export type Answer = { toolCalls: ToolCall[] } | { text: string };

/** Which format a request path speaks, or undefined for a path no model format uses. */
export function wireOf(pathname: string): Wire | undefined {
  if (pathname.endsWith("/chat/completions")) return "openai";
  if (pathname.endsWith("/messages")) return "anthropic";
  if (/:(stream)?generateContent$/i.test(pathname)) return "gemini";
  return undefined;
}

type Block = Record<string, unknown>;
const blocksOf = (content: unknown): Block[] =>
  typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
      ? (content as Block[])
      : [];
const textOf = (blocks: Block[]): string =>
  blocks
    .filter((b) => typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
const stringified = (value: unknown): string =>
  typeof value === "string" ? value : JSON.stringify(value ?? {});

/** An Anthropic messages request in the OpenAI shape: tool_use blocks become tool calls, tool_result
 * blocks tool messages. */
function fromAnthropic(raw: Record<string, unknown>): ChatRequest {
  const messages: ChatMessage[] = [];
  if (raw.system !== undefined) messages.push({ role: "system", content: textOf(blocksOf(raw.system)) });
  for (const m of (raw.messages ?? []) as { role: string; content: unknown }[]) {
    const blocks = blocksOf(m.content);
    for (const b of blocks.filter((b) => b.type === "tool_result"))
      messages.push({
        role: "tool",
        tool_call_id: String(b.tool_use_id),
        content: typeof b.content === "string" ? b.content : textOf(blocksOf(b.content)),
      });
    const calls = blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({
        id: String(b.id),
        type: "function",
        function: { name: String(b.name), arguments: stringified(b.input) },
      }));
    const text = textOf(blocks.filter((b) => b.type === "text"));
    if (calls.length > 0 || text || m.role === "assistant")
      messages.push({ role: m.role, content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
  }
  const tools = ((raw.tools ?? []) as { name: string; description?: string; input_schema?: unknown }[]).map(
    (t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    }),
  );
  return { model: raw.model as string | undefined, stream: raw.stream === true, messages, tools };
}

/** A Gemini generateContent request in the OpenAI shape: functionCall parts become tool calls,
 * functionResponse parts tool messages; role "model" is the assistant. */
function fromGemini(raw: Record<string, unknown>, stream: boolean): ChatRequest {
  const messages: ChatMessage[] = [];
  const system = raw.systemInstruction as { parts?: Block[] } | undefined;
  if (system) messages.push({ role: "system", content: textOf(system.parts ?? []) });
  for (const c of (raw.contents ?? []) as { role?: string; parts?: Block[] }[]) {
    const parts = c.parts ?? [];
    for (const p of parts.filter((p) => p.functionResponse)) {
      const fr = p.functionResponse as { id?: string; name?: string; response?: unknown };
      messages.push({ role: "tool", tool_call_id: fr.id ?? fr.name, content: stringified(fr.response) });
    }
    const calls = parts
      .filter((p) => p.functionCall)
      .map((p) => {
        const fc = p.functionCall as { id?: string; name: string; args?: unknown };
        return {
          id: fc.id ?? fc.name,
          type: "function",
          function: { name: fc.name, arguments: stringified(fc.args) },
        };
      });
    const role = c.role === "model" ? "assistant" : "user";
    const text = textOf(parts);
    if (calls.length > 0 || text || role === "assistant")
      messages.push({ role, content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
  }
  const tools = ((raw.tools ?? []) as { functionDeclarations?: Block[] }[]).flatMap((t) =>
    (t.functionDeclarations ?? []).map((d) => ({
      type: "function",
      function: {
        name: String(d.name),
        description: d.description as string | undefined,
        parameters: d.parametersJsonSchema ?? d.parameters,
      },
    })),
  );
  return { stream, messages, tools };
}

/** A request of any format in the OpenAI shape. */
export function readRequest(wire: Wire, raw: Record<string, unknown>, pathname: string): ChatRequest {
  if (wire === "anthropic") return fromAnthropic(raw);
  if (wire === "gemini") return fromGemini(raw, /:streamGenerateContent$/i.test(pathname));
  return raw as unknown as ChatRequest;
}

const sse = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

function writeOpenAi(res: ServerResponse, request: ChatRequest, answer: Answer, n: number): void {
  const id = `chatcmpl-${n}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model ?? "scripted";
  const calls = "toolCalls" in answer ? answer.toolCalls : undefined;
  const finish = calls ? "tool_calls" : "stop";
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  const content = "text" in answer ? answer.text : null;
  if (!request.stream) {
    const message = { role: "assistant", content, ...(calls ? { tool_calls: calls } : {}) };
    send(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }
  sse(res);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`,
    );
  const delta = calls
    ? { role: "assistant", content: null, tool_calls: calls.map((c, index) => ({ index, ...c })) }
    : { role: "assistant", content };
  chunk([{ index: 0, delta, finish_reason: null }]);
  chunk([{ index: 0, delta: {}, finish_reason: finish }]);
  if ((request.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
    chunk([], { usage });
  res.end("data: [DONE]\n\n");
}

function writeAnthropic(res: ServerResponse, request: ChatRequest, answer: Answer, n: number): void {
  const content =
    "toolCalls" in answer
      ? answer.toolCalls.map((c) => ({
          type: "tool_use",
          id: c.id,
          name: c.function.name,
          input: JSON.parse(c.function.arguments) as unknown,
        }))
      : [{ type: "text", text: answer.text }];
  const stopReason = "toolCalls" in answer ? "tool_use" : "end_turn";
  const message = {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model: request.model ?? "scripted",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!request.stream) {
    send(res, 200, { ...message, content, stop_reason: stopReason });
    return;
  }
  sse(res);
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event("message_start", { message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if ("text" in block) {
      event("content_block_start", { index, content_block: { type: "text", text: "" } });
      event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      event("content_block_start", { index, content_block: { ...block, input: {} } });
      const partial = JSON.stringify((block as { input: unknown }).input);
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: partial } });
    }
    event("content_block_stop", { index });
  });
  event("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 1 },
  });
  event("message_stop", {});
  res.end();
}

function writeGemini(res: ServerResponse, request: ChatRequest, answer: Answer): void {
  const parts =
    "toolCalls" in answer
      ? answer.toolCalls.map((c) => ({
          functionCall: {
            id: c.id,
            name: c.function.name,
            args: JSON.parse(c.function.arguments) as unknown,
          },
        }))
      : [{ text: answer.text }];
  const body = {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: "scripted",
  };
  if (!request.stream) {
    send(res, 200, body);
    return;
  }
  sse(res);
  res.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
}

/** Writes `answer` in the request's format (`n` numbers the response). */
export function writeAnswer(
  res: ServerResponse,
  wire: Wire,
  request: ChatRequest,
  answer: Answer,
  n: number,
): void {
  if (wire === "anthropic") writeAnthropic(res, request, answer, n);
  else if (wire === "gemini") writeGemini(res, request, answer);
  else writeOpenAi(res, request, answer, n);
}

/** An HTTP error as each format's provider sends it (a 429 says when to come back). */
export function writeFailure(res: ServerResponse, wire: Wire, status: number, message: string): void {
  const headers: Record<string, string> = status === 429 ? { "retry-after": "1" } : {};
  if (wire === "anthropic") {
    const type = status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error";
    send(res, status, { type: "error", error: { type, message } }, headers);
  } else if (wire === "gemini") {
    const state = status === 429 ? "RESOURCE_EXHAUSTED" : status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
    send(res, status, { error: { code: status, message, status: state } }, headers);
  } else {
    const type = status === 429 ? "rate_limit_exceeded" : "server_error";
    send(res, status, { error: { message, type, code: type } }, headers);
  }
}
