// Agent-layer benchmark: tokens an LLM agent pays per wake-up. In the standard scene — 20
// entities in view, 5 events since the last wake-up — it counts the o200k tokens (gpt-tokenizer, the
// GPT-4o/GPT-5 BPE) of the heartbeat answer, and of observe + pollEvents for the same scene, as the AIC
// JSON an HTTP agent receives and as the text the tools show a model. Goal: heartbeat <= 250 tokens and
// >= 5x smaller. It also counts a heartbeat that asks for the working memory (`memory: 8`, with two
// reflections the agent stored and the episodes the world recorded): the price of remembering, paid
// only on request. And the price of the tool list itself, paid in every model request: all ocw_* tool
// definitions in direct mode (goal <= 1,500 tokens). Last line: one JSON object with the figures.
import { fileURLToPath } from "node:url";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { RateLimiter } from "../src/aic/rate-limit.ts";
import type { HeartbeatResponse } from "../src/aic/schemas.ts";
import { AicService } from "../src/aic/service.ts";
import { loadWorldDir } from "../src/runtime/load-world-dir.ts";
import { WorldRuntime } from "../src/runtime/world-runtime.ts";
import { formatEvents, formatHeartbeat, formatObservation } from "../src/tools/render.ts";
import { World } from "../src/world/world.ts";
import { toolListTokens } from "./tool-list.ts";

const IN_VIEW = 20;
const EVENTS = 5;
const RADIUS = 256; // the ocw_observe default
const ROOM = "lobby";
const ME = "me";
const quiet = { info() {}, warn() {}, error() {} };

const tokens = (value: unknown) => encode(typeof value === "string" ? value : JSON.stringify(value)).length;

function must<T>(answer: { status: string }): T {
  if (answer.status !== "ok") throw new Error(JSON.stringify(answer));
  return (answer as unknown as { data: T }).data;
}

async function main() {
  const definition = await loadWorldDir(fileURLToPath(new URL("../worlds/lobby", import.meta.url)));
  const runtime = new WorldRuntime(World.create(definition), quiet);
  const service = new AicService({
    runtime,
    agents: (id) => ({ name: id === ME ? "Me" : `Neighbour ${id.slice(2)}` }),
    limiter: new RateLimiter({ disabled: true }),
  });
  const step = (n = 1) => {
    for (let i = 0; i < n; i++) runtime.stepNow();
  };
  const join = async (id: string) => {
    const joined = service.call("join", id, { agentId: id, roomId: ROOM });
    step();
    must(await joined);
  };
  const observe = () =>
    service.call("observe", ME, {
      agentId: ME,
      roomId: ROOM,
      radius: RADIUS,
      detail: "full",
      includeSelf: false,
    });

  // The scene: others join (they spawn around the same point) until 20 entities are in view.
  await join(ME);
  let others = 0;
  while (must<{ nearby: unknown[] }>(await observe()).nearby.length < IN_VIEW) {
    if (others > 200) throw new Error("could not fill the view");
    await join(`n_${others++}`);
    step(20); // proximity settles
  }
  if (must<{ nearby: unknown[] }>(await observe()).nearby.length !== IN_VIEW) {
    throw new Error("the view overshot 20 entities; adjust RADIUS");
  }
  step(40);
  // What the agent concluded earlier (reflection memory): two reflections of its own.
  for (const [i, content] of [
    "The lobby fills up quickly; newcomers gather near the spawn point.",
    "Nobody has read the welcome sign yet; I could tell them what it says.",
  ].entries()) {
    const reflected = service.call("reflect", ME, {
      agentId: ME,
      roomId: ROOM,
      txId: `tx_bench_reflect_${i}_x`,
      content,
      topics: ["lobby"],
      importance: 0.8,
    });
    step();
    must(await reflected);
  }

  // The last wake-up: a heartbeat and a poll position.
  const cursor = must<{ nextCursor: string }>(
    await service.call("pollEvents", ME, { agentId: ME, roomId: ROOM, sinceCursor: "c_0", limit: 200 }),
  ).nextCursor;
  const token = must<HeartbeatResponse>(
    await service.call("heartbeat", ME, { agentId: ME, roomId: ROOM }),
  ).contextToken;

  // 5 events the agent perceives: three neighbours speak, one more arrives, one leaves the room.
  for (const [i, message] of [
    "Hello Me, welcome to the lobby!",
    "Has anyone read the welcome sign?",
    "I'm heading to the east room.",
  ].entries()) {
    const said = service.call("chatSend", `n_${i}`, {
      agentId: `n_${i}`,
      roomId: ROOM,
      txId: `tx_bench_chat_${i}_x`,
      channel: "global",
      message,
    });
    step();
    must(await said);
  }
  const late = service.call("join", "n_late", { agentId: "n_late", roomId: ROOM });
  const left = service.call("leave", `n_${others - 1}`, { agentId: `n_${others - 1}`, roomId: ROOM });
  step();
  must(await late);
  must(await left);

  const poll = await service.call("pollEvents", ME, {
    agentId: ME,
    roomId: ROOM,
    sinceCursor: cursor,
    limit: 200,
  });
  const polled = must<Parameters<typeof formatEvents>[0]>(poll);
  if (polled.events.length !== EVENTS) {
    throw new Error(`the scene has ${polled.events.length} events since the last wake-up, not ${EVENTS}`);
  }
  const observed = await observe();
  const view = must<Parameters<typeof formatObservation>[0]>(observed);
  const beat = await service.call("heartbeat", ME, { agentId: ME, roomId: ROOM, contextToken: token });
  const hb = must<HeartbeatResponse>(beat);
  const MEMORY = 8;
  const withMemory = await service.call("heartbeat", ME, {
    agentId: ME,
    roomId: ROOM,
    contextToken: token,
    memory: MEMORY,
  });
  // The tool fills in the room the answer leaves out (the one asked about), as ocw_heartbeat does.
  const asTool = (data: HeartbeatResponse) => ({
    ...data,
    self: { ...data.self, roomId: data.self.roomId ?? ROOM },
  });
  const hbMemory = must<HeartbeatResponse>(withMemory);
  if (hbMemory.memory?.length !== MEMORY) throw new Error(`expected ${MEMORY} memory entries`);

  if (process.env.AGENT_BENCH_SHOW) console.log(JSON.stringify(beat), "\n", formatHeartbeat(asTool(hb)));
  if (process.env.AGENT_BENCH_SHOW)
    console.log(JSON.stringify(hbMemory.memory), "\n", formatHeartbeat(asTool(hbMemory)));
  const heartbeatTokens = tokens(beat);
  const observePlusPollTokens = tokens(observed) + tokens(poll);
  const toolHeartbeatTokens = tokens(formatHeartbeat(asTool(hb)));
  const toolObservePlusPollTokens = tokens(formatObservation(view)) + tokens(formatEvents(polled));
  const ratio = Math.round((observePlusPollTokens / heartbeatTokens) * 100) / 100;
  const toolRatio = Math.round((toolObservePlusPollTokens / toolHeartbeatTokens) * 100) / 100;
  const heartbeatWithMemoryTokens = tokens(withMemory);
  const toolHeartbeatWithMemoryTokens = tokens(formatHeartbeat(asTool(hbMemory)));
  console.log(
    `scene: ${view.nearby.length} entities in view, ${polled.events.length} events since the last wake-up`,
  );
  console.log(
    `AIC JSON   heartbeat ${heartbeatTokens} tokens; observe + pollEvents ${observePlusPollTokens} (x${ratio})`,
  );
  console.log(
    `tool text  heartbeat ${toolHeartbeatTokens} tokens; observe + poll ${toolObservePlusPollTokens} (x${toolRatio})`,
  );
  console.log(
    `memory     heartbeat with memory: ${MEMORY} ${heartbeatWithMemoryTokens} tokens (tool text ${toolHeartbeatWithMemoryTokens})`,
  );
  const toolList = toolListTokens();
  console.log(
    `tool list  ${toolList.total} tokens in direct mode (${Object.entries(toolList.perTool)
      .map(([name, n]) => `${name} ${n}`)
      .join(", ")})`,
  );
  console.log(
    JSON.stringify({
      tokenizer: "gpt-tokenizer o200k_base",
      inView: view.nearby.length,
      events: polled.events.length,
      heartbeatTokens,
      observePlusPollTokens,
      ratio,
      toolHeartbeatTokens,
      toolObservePlusPollTokens,
      toolRatio,
      memoryEntries: MEMORY,
      memoryReflections: hbMemory.memory.filter((m) => m.kind === "reflection").length,
      heartbeatWithMemoryTokens,
      toolHeartbeatWithMemoryTokens,
      toolListTokens: toolList.total,
      toolListGoalMet: toolList.total <= 1500,
      goalMet: heartbeatTokens <= 250 && ratio >= 5,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
