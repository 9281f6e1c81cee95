import { afterEach, describe, expect, it } from "vitest";
import {
  type ChatRequest,
  offeredTools,
  pickStep,
  type ScriptedModel,
  scriptedModelClient,
  startScriptedModel,
  toolResults,
} from "./scripted-model.ts";

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const tool = (name: string) => ({ type: "function", function: { name, parameters: { type: "object" } } });

async function complete(body: ChatRequest): Promise<Response> {
  return fetch(`${model?.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("scenario and step from the request alone", () => {
  it("the last message with a marker names the scenario; assistant replies after it count the step", () => {
    const messages = [
      { role: "system", content: "ocw-scenario:default" },
      { role: "user", content: [{ type: "text", text: "hi ocw-scenario:walk" }] },
      { role: "assistant", content: null },
      { role: "tool", content: "result" },
    ];
    expect(pickStep({ messages })).toEqual({ scenario: "walk", step: 1 });
    expect(pickStep({ messages: [{ role: "user", content: "no marker" }] })).toEqual({
      scenario: undefined,
      step: 0,
    });
  });

  it("within one message the last marker wins (a wake prompt quotes what was said, newest last)", () => {
    const prompt =
      '- Ann said near you: "hi ocw-scenario:first"\n- Ann said near you: "again ocw-scenario:second"';
    expect(pickStep({ messages: [{ role: "user", content: prompt }] })).toEqual({
      scenario: "second",
      step: 0,
    });
  });
});

describe("a step that takes its time", () => {
  it("is answered after its delay, and the record says when it came and went", async () => {
    model = await startScriptedModel();
    model.define("slow", [{ text: "ok", delayMs: 300 }]);
    const res = await complete({ messages: [{ role: "user", content: "ocw-scenario:slow" }] });
    expect(res.status).toBe(200);
    const [recorded] = model.requests("slow");
    expect(recorded!.answeredAtMs - recorded!.receivedAtMs).toBeGreaterThanOrEqual(290);
  });
});

describe("the scripted model server", () => {
  it("answers a step's tool call, then its text, and records both requests", async () => {
    model = await startScriptedModel();
    model.define("s1", [{ toolCalls: [{ name: "ocw_status", arguments: { a: 1 } }] }, { text: "done here" }]);
    const first = (await (
      await complete({
        messages: [{ role: "user", content: "ocw-scenario:s1" }],
        tools: [tool("ocw_status")],
      })
    ).json()) as {
      choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[];
    };
    expect(first.choices[0]?.message.tool_calls[0]?.function).toEqual({
      name: "ocw_status",
      arguments: '{"a":1}',
    });
    const second = (await (
      await complete({
        messages: [
          { role: "user", content: "ocw-scenario:s1" },
          { role: "assistant", content: null },
          { role: "tool", content: "ok" },
        ],
      })
    ).json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(second.choices[0]).toMatchObject({ message: { content: "done here" }, finish_reason: "stop" });
    expect(model.requests("s1").map((r) => r.step)).toEqual([0, 1]);
  });

  it("calls a tool through Tool Search's tool_call when it is not offered directly", async () => {
    model = await startScriptedModel();
    model.define("s2", [{ toolCalls: [{ name: "ocw_observe", arguments: { radius: 5 } }] }]);
    const answer = (await (
      await complete({
        messages: [{ role: "user", content: "ocw-scenario:s2" }],
        tools: [tool("tool_search"), tool("tool_call")],
      })
    ).json()) as {
      choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[];
    };
    const call = answer.choices[0]?.message.tool_calls[0]?.function;
    expect(call?.name).toBe("tool_call");
    expect(JSON.parse(call?.arguments ?? "{}")).toEqual({ id: "ocw_observe", args: { radius: 5 } });
  });

  it("streams chat.completion.chunk events when asked, ending with [DONE]", async () => {
    model = await startScriptedModel();
    model.define("s3", [{ toolCalls: [{ name: "ocw_status", arguments: {} }] }]);
    const res = await complete({
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "ocw-scenario:s3" }],
      tools: [tool("ocw_status")],
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice("data: ".length)));
    expect(chunks[0].choices[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      function: { name: "ocw_status" },
    });
    expect(chunks[1].choices[0].finish_reason).toBe("tool_calls");
    expect(chunks[2].usage).toBeDefined();
  });

  it("another process defines scenarios and reads the record over HTTP; no marker answers done", async () => {
    model = await startScriptedModel();
    const client = scriptedModelClient(model.origin);
    await client.define("remote", [{ text: "from afar" }]);
    await complete({ messages: [{ role: "user", content: "ocw-scenario:remote" }] });
    const plain = (await (await complete({ messages: [{ role: "user", content: "hello" }] })).json()) as {
      choices: { message: { content: string } }[];
    };
    expect(plain.choices[0]?.message.content).toBe("done");
    expect((await client.requests("remote")).map((r) => r.reply)).toEqual([{ text: "from afar" }]);
    expect(await client.requests()).toHaveLength(2);
  });
});

describe("models as they are brought (#41)", () => {
  it("numbers its calls per response (call_0 every time) when a step says so", async () => {
    model = await startScriptedModel();
    const step = {
      toolCalls: [{ name: "ocw_chat_send", arguments: { message: "hi" } }],
      ids: "per-response",
    };
    model.define("reuse", [step as never, step as never]);
    const ask = async (messages: ChatRequest["messages"]) => {
      const res = await complete({ messages, tools: [tool("ocw_chat_send")] });
      return ((await res.json()) as { choices: { message: { tool_calls: { id: string }[] } }[] }).choices[0]!
        .message.tool_calls[0]!.id;
    };
    const user = { role: "user", content: "ocw-scenario:reuse" };
    expect(await ask([user])).toBe("call_0");
    expect(await ask([user, { role: "assistant", content: null }, { role: "tool", content: "ok" }])).toBe(
      "call_0",
    );
  });

  it("a repeating last step answers every later call: a model that never stops", async () => {
    model = await startScriptedModel();
    model.define("loop", [{ text: "first" }, { toolCalls: [{ name: "x", arguments: {} }], repeat: true }]);
    const later = [{ role: "user", content: "ocw-scenario:loop" }, ...Array(5).fill({ role: "assistant" })];
    await complete({ messages: later, tools: [tool("x")] });
    expect(model.requests("loop")[0]).toMatchObject({ step: 5, reply: { repeat: true } });
  });
});

describe("the three wire formats (#41)", () => {
  const post = (path: string, body: unknown) =>
    fetch(`${model?.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const dataLines = (text: string) =>
    text
      .split(/\r?\n\r?\n/)
      .map((e) => e.split(/\r?\n/).find((l) => l.startsWith("data: ")))
      .filter((l): l is string => !!l)
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

  it("Anthropic messages: tool_use and tool_result blocks count the step; the reply streams tool_use", async () => {
    model = await startScriptedModel();
    model.define("anth", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "hi" } }] },
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "again" } }] },
    ]);
    const res = await post("/v1/messages", {
      model: "scripted-1",
      stream: true,
      system: [{ type: "text", text: "you are" }],
      tools: [{ name: "ocw_chat_send", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "hello ocw-scenario:anth" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "ocw_chat_send", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "sent" }] },
      ],
    });
    expect(res.status).toBe(200);
    const events = dataLines(await res.text());
    expect(events.map((e) => e.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(events[1]).toMatchObject({ content_block: { type: "tool_use", name: "ocw_chat_send" } });
    expect(events[2]).toMatchObject({ delta: { partial_json: '{"message":"again"}' } });
    expect(events[4]).toMatchObject({ delta: { stop_reason: "tool_use" } });
    const [recorded] = model.requests("anth");
    expect(recorded).toMatchObject({ wire: "anthropic", step: 1 });
    expect(offeredTools(recorded!.body)).toEqual(["ocw_chat_send"]);
    expect(toolResults(recorded!.body)).toEqual([{ toolCallId: "t1", text: "sent" }]);
  });

  it("Gemini streamGenerateContent: functionCall and functionResponse parts; the reply is a functionCall", async () => {
    model = await startScriptedModel();
    model.define("gem", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "hi" } }] },
      { text: "ok" },
    ]);
    const path = "/v1beta/models/scripted-1:streamGenerateContent?alt=sse";
    const first = await post(path, {
      systemInstruction: { parts: [{ text: "you are" }] },
      tools: [
        { functionDeclarations: [{ name: "ocw_chat_send", parametersJsonSchema: { type: "object" } }] },
      ],
      contents: [{ role: "user", parts: [{ text: "hello ocw-scenario:gem" }] }],
    });
    const [chunk] = dataLines(await first.text());
    expect(chunk).toMatchObject({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ functionCall: { name: "ocw_chat_send", args: { message: "hi" } } }],
          },
        },
      ],
    });
    const second = await post(path, {
      contents: [
        { role: "user", parts: [{ text: "hello ocw-scenario:gem" }] },
        { role: "model", parts: [{ functionCall: { id: "f1", name: "ocw_chat_send", args: {} } }] },
        {
          role: "user",
          parts: [{ functionResponse: { id: "f1", name: "ocw_chat_send", response: { ok: 1 } } }],
        },
      ],
    });
    expect(dataLines(await second.text())[0]).toMatchObject({
      candidates: [{ content: { parts: [{ text: "ok" }] } }],
    });
    expect(model.requests("gem").map((r) => [r.wire, r.step])).toEqual([
      ["gemini", 0],
      ["gemini", 1],
    ]);
  });

  it("a failing step answers its HTTP status in each format's error shape (429 says when to retry)", async () => {
    model = await startScriptedModel();
    model.define("down", [{ fail: 500 }]);
    model.define("busy", [{ fail: 429, message: "slow down" }]);
    const openai = await complete({ messages: [{ role: "user", content: "ocw-scenario:down" }] });
    expect(openai.status).toBe(500);
    const anthropic = await post("/v1/messages", {
      messages: [{ role: "user", content: "ocw-scenario:busy" }],
    });
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get("retry-after")).toBe("1");
    expect(await anthropic.json()).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "slow down" },
    });
    const gemini = await post("/v1beta/models/scripted-1:generateContent", {
      contents: [{ role: "user", parts: [{ text: "ocw-scenario:busy" }] }],
    });
    expect(await gemini.json()).toMatchObject({ error: { code: 429, status: "RESOURCE_EXHAUSTED" } });
  });
});
