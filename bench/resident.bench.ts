// Residents benchmark: a real gateway, the scripted model answering at once, a person on a
// WebSocket (the web client's protocol) two tiles from a resident saying hello, TURNS times. It measures
// how soon the world starts the resident's turn after the tick that carried the chat (`wakeTicks`, from
// the operator status: the tick that woke it and the tick the turn started on), how soon the person
// sees the reply beyond the model's own time (`replySeen*Ms`: chat sent -> reply received, minus the
// time the scripted model held its requests), the part of it after the model answered with the tool
// call (`afterModel*Ms`), the part before the gateway's first model request of the turn
// (`toModelRequest*Ms`: the agent loop preparing the turn), and the o200k tokens of the wake prompt and of the tool list the model was
// sent (direct mode: the gateway's Tool Search off). The first turn (the gateway prepares the agent's
// session once) is reported apart (`firstReplySeenMs`), and so is the time from the gateway being ready
// to that first reply (`firstReplyAfterStartMs`: the person's join and two-tile walk included). Over
// TURNS turns (default 100) it measures each turn's first model request (JSON characters), so a
// conversation that grows without bound shows (`requestCharsFirst`, `requestCharsAfterTurns`,
// `requestGrowth`; goal: at most 1.5x; it went 12.8k -> 31.3k chars over 15 turns before a
// resident's session was bounded to `sessionTurns` turns). The gateway's CPU per turn (its process and
// the workers it forks; the scripted model runs in this process, so none of it is the model's), less
// what the gateway spends idle in the same time (measured first, over IDLE_MS with the person standing
// by): `cpuMsPerTurnBeyondModel` (turns after the first), `firstTurnCpuMs`. Two gateways in one run:
// the baseline with the resident's turns not readied (`prepareTurns: false`), then readied at the
// world's start (waited for before the idle window: `preparedMs`, with `modelRequestsBeforeTurns`,
// which must stay 0); the last line is the readied run's figures with the baseline's first turn
// beside them (`firstReplyRatio`). RESIDENT_BENCH_PREPARE=only runs the readied gateway alone.
// Last line: one JSON object.
import os from "node:os";
import { performance } from "node:perf_hooks";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { WebSocket } from "ws";
import { BUNDLED_RESIDENTS } from "../scripts/lib/bundled-residents.ts";
import { deepMerge } from "../scripts/lib/merge.ts";
import { ServerFrameReader } from "../src/http/humans/wire-delta.ts";
import { startGateway } from "../test/support/gateway.ts";
import { messageText, type RecordedRequest, startScriptedModel } from "../test/support/scripted-model.ts";
import { processTreeCpuMs } from "./lib/process-cpu.ts";

const TURNS = Number(process.env.RESIDENT_BENCH_TURNS ?? 100);
const IDLE_MS = 10_000;
// The bundled guide as npm start has it (home beside the welcome sign, persona, and ocw_move_to with
// the plaza's places in its prompt), woken by speech and its name as before (no approach greeting:
// each turn here answers one hello).
const GUIDE = BUNDLED_RESIDENTS.guide!;
const HOME = GUIDE.home;
const SPOT = { tx: HOME.tx + 2, ty: HOME.ty + 1 };
const REPLY = "Hello from the guide!";

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const round = (x: number) => Math.round(x * 10) / 10;
const wakePrompt = (r: RecordedRequest) => {
  const text = r.body.messages
    .filter((m) => m.role === "user")
    .map((m) => messageText(m.content))
    .reverse()
    .find((t) => t.includes("[OpenClawWorld]"));
  return text ? text.slice(text.indexOf("[OpenClawWorld]")) : "";
};

/** One gateway's run: the resident's turns readied at the world's start (`prepareTurns`) or not. */
async function run(prepare: boolean): Promise<Record<string, unknown>> {
  const model = await startScriptedModel();
  model.define("bench-reply", [
    { toolCalls: [{ name: "ocw_chat_send", arguments: { message: REPLY } }] },
    { text: "done" },
  ]);
  const gw = await startGateway({
    pluginConfig: {
      residents: {
        bench: {
          name: GUIDE.name,
          home: HOME,
          persona: GUIDE.persona,
          minIntervalSec: 0,
          maxTurnsPerHour: 3600,
          // One person talks all the time here: their share is the whole hour.
          maxTurnsPerPersonPerHour: 3600,
          turnTimeoutSec: 600,
          prepareTurns: prepare,
        },
      },
      tools: { perAgent: { bench: { enabled: ["ocw_chat_send", "ocw_move_to"] } } },
      rateLimits: { disabled: true },
    },
    agentIds: ["bench"],
    // RESIDENT_BENCH_PROFILE=<dir>: the gateway's V8 CPU profile, written there when it stops.
    ...(process.env.RESIDENT_BENCH_PROFILE ? { cpuProfileDir: process.env.RESIDENT_BENCH_PROFILE } : {}),
    gatewayConfig: deepMerge(model.providerConfig(), {
      agents: { defaults: { heartbeat: { every: "0m" } } },
      tools: { toolSearch: false },
    }),
  });
  const readyAt = performance.now();
  const ws = new WebSocket(`${gw.baseUrl.replace(/^http/, "ws")}/world/ws`, {
    perMessageDeflate: false,
    headers: { origin: gw.baseUrl },
  });
  try {
    const reader = new ServerFrameReader();
    let me: { id: string; tx: number; ty: number } | undefined;
    const replies: number[] = [];
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      const now = performance.now();
      const msg = reader.read(isBinary ? data : data.toString()) as {
        type: string;
        entityId?: string;
        entities?: { id: string; tx: number; ty: number }[];
        update?: { id: string; tx?: number; ty?: number }[];
        events?: { type: string; payload: { fromEntityId?: string; message?: string } }[];
      };
      if (msg.type === "welcome") me = msg.entities?.find((e) => e.id === msg.entityId);
      for (const u of msg.update ?? []) {
        if (me && u.id === me.id)
          me = {
            ...me,
            ...(u.tx !== undefined ? { tx: u.tx } : {}),
            ...(u.ty !== undefined ? { ty: u.ty } : {}),
          };
      }
      for (const e of msg.events ?? []) {
        if (
          e.type === "chat.message" &&
          e.payload.fromEntityId === "agt_bench" &&
          e.payload.message === REPLY
        )
          replies.push(now);
      }
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const send = (message: unknown) => ws.send(JSON.stringify(message));
    const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 180_000) => {
      const deadline = performance.now() + ms;
      while (!(await check())) {
        if (performance.now() > deadline) throw new Error(`timed out: ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    send({ type: "join", name: "Bench Human" });
    await until("welcome", () => me !== undefined);
    send({ type: "act", action: { kind: "moveTo", dest: { tx: SPOT.tx, ty: SPOT.ty } } });
    await until("at the guide", () => me?.tx === SPOT.tx && me.ty === SPOT.ty, 30_000);

    const operator = async () => {
      const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
        headers: { authorization: `Bearer ${gw.gatewayToken}` },
      });
      const body = (await res.json()) as {
        data: {
          residents: {
            state: string;
            lastTurn?: { wokeAtTick: number; startedAtTick: number; prompt: string };
            prepared?: { ms: number; said: string };
          }[];
        };
      };
      return body.data.residents[0]!;
    };
    // Readied turns are ready before the idle window (their work is not the gateway idle), and no
    // model was asked for them.
    const prepared = prepare
      ? await (async () => {
          await until("turns readied", async () => (await operator()).prepared !== undefined, 180_000);
          return (await operator()).prepared!;
        })()
      : undefined;
    const modelRequestsBeforeTurns = model.requests().length;
    // The gateway idle (the world ticking, nobody speaking): what its CPU costs without turns.
    const idleFrom = { at: performance.now(), cpu: processTreeCpuMs(gw.pid) };
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const idleCpuMsPerMs = (processTreeCpuMs(gw.pid) - idleFrom.cpu) / (performance.now() - idleFrom.at);
    const turnCpu: number[] = [];
    const wakeTicks: number[] = [];
    const replySeen: number[] = [];
    const afterModel: number[] = [];
    const toModel: number[] = [];
    const promptTokens: number[] = [];
    const requestChars: number[] = [];
    let toolListTokens = 0;
    for (let i = 0; i < TURNS; i++) {
      const tag = `#${i}#`;
      const before = replies.length;
      const sentAt = performance.now();
      const sentEpoch = Date.now();
      const cpuBefore = processTreeCpuMs(gw.pid);
      send({ type: "chat_send", channel: "proximity", message: `hello ${tag} ocw-scenario:bench-reply` });
      await until(`reply ${i}`, () => replies.length > before);
      const seenAt = replies[before]!;
      const seenEpoch = sentEpoch + (seenAt - sentAt);
      await until(`turn ${i} over`, async () => (await operator()).state === "awake");
      turnCpu.push(processTreeCpuMs(gw.pid) - cpuBefore - idleCpuMsPerMs * (performance.now() - sentAt));
      const turn = (await operator()).lastTurn!;
      const requests = model.requests("bench-reply").filter((r) => wakePrompt(r).includes(tag));
      const modelMs = requests
        .filter((r) => r.receivedAtMs < seenEpoch)
        .reduce((sum, r) => sum + (r.answeredAtMs - r.receivedAtMs), 0);
      const toolCall = requests.find((r) => r.step === 0)!;
      wakeTicks.push(turn.startedAtTick - turn.wokeAtTick);
      replySeen.push(seenAt - sentAt - modelMs);
      afterModel.push(seenEpoch - toolCall.answeredAtMs);
      toModel.push(toolCall.receivedAtMs - sentEpoch);
      // The prompt the world wrote (the gateway wraps it in context of its own in the request).
      promptTokens.push(encode(turn.prompt).length);
      toolListTokens = encode(JSON.stringify(toolCall.body.tools ?? [])).length;
      requestChars.push(JSON.stringify(toolCall.body).length);
      console.log(
        `turn ${i}: wake ${wakeTicks.at(-1)} ticks, reply seen ${round(replySeen.at(-1)!)} ms beyond model time (${round(modelMs)} ms), ${round(afterModel.at(-1)!)} ms after the model's tool call, prompt ${promptTokens.at(-1)} tokens, request ${requestChars.at(-1)} chars, gateway CPU ${round(turnCpu.at(-1)!)} ms beyond idle`,
      );
    }
    const steady = (xs: number[]) => (xs.length > 1 ? xs.slice(1) : xs);
    return {
      bench: "resident",
      prepareTurns: prepare,
      ...(prepared ? { preparedMs: prepared.ms, preparedSaid: prepared.said.slice(0, 120) } : {}),
      modelRequestsBeforeTurns,
      turns: TURNS,
      wakeTicks: quantile(wakeTicks, 0.95),
      wakeTicksP50: quantile(wakeTicks, 0.5),
      replySeenP50Ms: round(quantile(steady(replySeen), 0.5)),
      replySeenP95Ms: round(quantile(steady(replySeen), 0.95)),
      firstReplySeenMs: round(replySeen[0]!),
      firstReplyAfterStartMs: round(replies[0]! - readyAt),
      requestCharsFirst: requestChars[0],
      requestCharsAfterTurns: requestChars.at(-1),
      requestCharsMax: Math.max(...requestChars),
      requestGrowth: Math.round((requestChars.at(-1)! / requestChars[0]!) * 100) / 100,
      afterModelP50Ms: round(quantile(steady(afterModel), 0.5)),
      afterModelP95Ms: round(quantile(steady(afterModel), 0.95)),
      // Chat sent -> the gateway's first model request of the turn: the agent loop's own preparation.
      toModelRequestP50Ms: round(quantile(steady(toModel), 0.5)),
      toModelRequestP95Ms: round(quantile(steady(toModel), 0.95)),
      // The gateway's CPU per turn beyond what it spends idle (the model is not in it).
      cpuMsPerTurnBeyondModel: round(steady(turnCpu).reduce((a, b) => a + b, 0) / steady(turnCpu).length),
      cpuMsPerTurnP95: round(quantile(steady(turnCpu), 0.95)),
      firstTurnCpuMs: round(turnCpu[0]!),
      idleCpuPct: round(idleCpuMsPerMs * 100),
      loadAverage1m: round(os.loadavg()[0]!),
      wakePromptTokens: Math.max(...promptTokens),
      toolListTokens,
      toolListMode: "direct",
      tokenizer: "gpt-tokenizer o200k_base",
    };
  } finally {
    ws.close();
    await gw.stop();
    await model.close();
  }
}

/** Both runs, the baseline (turns not readied) first; the figures of the readied run, with the
 * baseline's first turn beside them. RESIDENT_BENCH_PREPARE=only skips the baseline. */
async function main() {
  const baseline = process.env.RESIDENT_BENCH_PREPARE === "only" ? undefined : await run(false);
  if (baseline) console.log(`baseline (turns not readied): ${JSON.stringify(baseline)}`);
  const readied = await run(true);
  console.log(
    JSON.stringify({
      ...readied,
      ...(baseline
        ? {
            baselineFirstReplySeenMs: baseline.firstReplySeenMs,
            baselineFirstTurnCpuMs: baseline.firstTurnCpuMs,
            firstReplyRatio:
              Math.round(
                ((readied.firstReplySeenMs as number) / (baseline.firstReplySeenMs as number)) * 100,
              ) / 100,
          }
        : {}),
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
