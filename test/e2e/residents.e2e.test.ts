// Residents end to end (issue #25): a gateway agent that lives in the world, woken by the world through
// the gateway's own agent loop (the scripted model answers). A person in a real browser says hello next
// to it and sees its answer; its name said from afar wakes it; what is said during its turn goes into
// one next turn; the least interval and the hourly cap hold. Asserted on the requests the gateway sent
// the model and on world state, never on model text (the scenario marker rides in what the person
// says, which the wake prompt quotes).
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolate } from "../../web/client/bidi.ts";
import { THINKING_MARK } from "../../web/client/name-tag.ts";
import {
  launchBrowser,
  lobbyBlocked,
  me,
  ocw,
  openPlayer,
  until,
  type WatchedPage,
  walkTo,
} from "../support/browser.ts";
import {
  messageText,
  offeredTools,
  type RecordedRequest,
  scriptedModelClient,
} from "../support/scripted-model.ts";
import { E2E_RESIDENT, gateway } from "./fixtures.ts";

const model = () => scriptedModelClient(gateway().modelOrigin);
const HOME = E2E_RESIDENT.config.home;
const KEEPER = E2E_RESIDENT.entityId;

interface ChatLine {
  from: string;
  message: string;
  channel: string;
}
interface ResidentStatus {
  agentId: string;
  state: string;
  pending: number;
  turnsLastHour: number;
  waitingFor?: "interval" | "hourly_cap" | "world_budget" | "gateway_busy";
  prepared?: { ms: number; said: string };
  lastTurn?: { wokeAtTick: number; startedAtTick: number; startedAtMs: number; endedAtMs?: number };
}

const say = (page: Page, message: string) =>
  ocw(page, `send(${JSON.stringify({ type: "chat_send", channel: "proximity", message })})`);
const chat = (page: Page) => ocw<ChatLine[]>(page, "chat()");
const tags = (page: Page) => ocw<string[]>(page, "tags()");
const heard = async (page: Page, message: string) =>
  (await chat(page)).some((c) => c.from === KEEPER && c.message === message);

/** The wake prompt of a request: the user message carrying the resident's world prompt. */
const wakePrompt = (r: RecordedRequest) =>
  r.body.messages
    .filter((m) => m.role === "user")
    .map((m) => messageText(m.content))
    .reverse()
    .find((t) => t.includes("[OpenClawWorld]")) ?? "";

async function keeperStatus(): Promise<ResidentStatus> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
    headers: { authorization: `Bearer ${gw.gatewayToken}` },
  });
  const body = (await res.json()) as { data?: { residents?: ResidentStatus[] } };
  const keeper = body.data?.residents?.find((r) => r.agentId === E2E_RESIDENT.agentId);
  if (!keeper) throw new Error(`no resident in the operator status: ${JSON.stringify(body).slice(0, 300)}`);
  return keeper;
}

let browser: Browser;
let ann: WatchedPage;
let bea: WatchedPage;

beforeAll(async () => {
  const blocked = await lobbyBlocked(gateway().baseUrl);
  browser = await launchBrowser();
  ann = await openPlayer(browser, gateway().baseUrl, "Ann");
  bea = await openPlayer(browser, gateway().baseUrl, "Bea");
  await walkTo(ann.page, HOME.tx - 2, HOME.ty, blocked);
}, 420_000);

afterAll(async () => {
  await browser?.close();
});

describe("a resident of the world", () => {
  it("stands at home from the start, tagged AI, awake, though no tool was ever called for it", async () => {
    await until("Ann sees the Keeper at home", async () => {
      const keeper = (
        await ocw<{ id: string; kind: string; tx: number; ty: number }[]>(ann.page, "entities()")
      ).find((e) => e.id === KEEPER);
      return keeper?.kind === "agent" && keeper.tx === HOME.tx && keeper.ty === HOME.ty;
    });
    expect(await tags(ann.page)).toContain(`${isolate("Keeper")} · AI`);
    const status = (await (await fetch(`${gateway().baseUrl}/world/api/status`)).json()) as {
      residents: { agentId: string; state: string }[];
    };
    expect(status.residents.find((r) => r.agentId === "keeper")).toEqual({
      agentId: "keeper",
      entityId: KEEPER,
      name: "Keeper",
      state: "awake",
    });
  });

  it("its turns were readied when the world started (the gateway's agent loop loaded), and no model was asked for that", async () => {
    const prepared = await until(
      "the Keeper's turns readied",
      async () => (await keeperStatus()).prepared,
      180_000,
    );
    expect(prepared.said).toMatch(/^readied/);
    const asked = (await model().requests()).filter((r) =>
      r.body.messages.some((m) => messageText(m.content).includes("readying this resident's turns")),
    );
    expect(asked).toEqual([]);
  });

  it("hello next to it: its turn runs through the agent loop, its reply reaches the person's browser", async () => {
    await model().define("res-hello", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "Welcome, Ann!" } }] },
      { text: "done" },
    ]);
    await say(ann.page, "hello ocw-scenario:res-hello");
    await until("Ann hears the Keeper's answer", () => heard(ann.page, "Welcome, Ann!"), 300_000);
    // The tool's answer went back to the model (its next request): the chat went through the plugin's
    // tool and policy.
    await until(
      "the model is sent the tool's answer",
      async () =>
        (await model().requests("res-hello")).some(
          (r) => r.step === 1 && r.body.messages.some((m) => m.role === "tool"),
        ),
      120_000,
    );
    const first = (await model().requests("res-hello")).find((r) => r.step === 0)!;
    // The turn is given the world tools its policy allows (here behind Tool Search's own controls),
    // not every enabled plugin's tools: about 25,000 tokens of them per request before.
    expect(offeredTools(first.body).filter((name) => !/^(ocw|tool)_/.test(name))).toEqual([]);
    expect(encode(JSON.stringify(first.body.tools ?? [])).length).toBeLessThan(2_500);
    expect(wakePrompt(first)).toContain("You are Keeper");
    expect(wakePrompt(first)).toContain(
      'Ann (person, 2 tiles) said near you: "hello ocw-scenario:res-hello"',
    );
    const keeper = await keeperStatus();
    // The turn started on the tick that carried the chat (the world wakes it within the tick).
    expect(keeper.lastTurn!.startedAtTick - keeper.lastTurn!.wokeAtTick).toBeLessThanOrEqual(1);
    expect((await chat(ann.page)).find((c) => c.from === KEEPER)?.channel).toBe("proximity");
  }, 420_000);

  it("its name said from afar wakes it (it did not hear the rest)", async () => {
    const [keeperTile, beaTile] = [HOME, await me(bea.page)];
    expect(
      Math.max(Math.abs(beaTile.tx - keeperTile.tx), Math.abs(beaTile.ty - keeperTile.ty)),
    ).toBeGreaterThan(6);
    await model().define("res-far", [{ text: "never asked" }]);
    await model().define("res-name", [
      {
        toolCalls: [{ name: "ocw_chat_send", arguments: { message: "Over here, Bea!", channel: "global" } }],
      },
      { text: "done" },
    ]);
    await say(bea.page, "is anybody there? ocw-scenario:res-far");
    await say(bea.page, "Keeper, where are you? ocw-scenario:res-name");
    await until(
      "Bea hears the Keeper from across the room",
      () => heard(bea.page, "Over here, Bea!"),
      300_000,
    );
    const first = (await model().requests("res-name")).find((r) => r.step === 0)!;
    expect(wakePrompt(first)).toContain('said your name: "Keeper, where are you? ocw-scenario:res-name"');
    expect(wakePrompt(first)).not.toContain("is anybody there");
    expect(await model().requests("res-far")).toEqual([]);
  }, 420_000);

  it("what is said during a turn goes into one next turn, no sooner than the least interval; the mark shows meanwhile", async () => {
    await model().define("res-slow", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "Let me think." } }], delayMs: 5000 },
      { text: "done" },
    ]);
    await model().define("res-later", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "I heard you both." } }] },
      { text: "done" },
    ]);
    // The last test ends when its answer is heard, while that turn may still be finishing: said now,
    // the question would wait for the next turn and the mark below would be the old turn's (seen
    // once at load average 4: the question went into one turn with "second" and "third").
    await until(
      "the Keeper between turns",
      async () => {
        const keeper = await keeperStatus();
        return keeper.state === "awake" && keeper.pending === 0 && keeper.lastTurn?.endedAtMs !== undefined;
      },
      300_000,
    );
    await say(ann.page, "a hard question ocw-scenario:res-slow");
    await until(
      "the Keeper shows it is thinking",
      async () => (await tags(ann.page)).includes(`${isolate("Keeper")} · AI${THINKING_MARK}`),
      60_000,
    );
    const slowStart = (await keeperStatus()).lastTurn!.startedAtMs;
    await say(ann.page, "second ocw-scenario:res-later");
    await say(ann.page, "third ocw-scenario:res-later");
    await until("Ann hears the answer to both", () => heard(ann.page, "I heard you both."), 300_000);
    const later = (await model().requests("res-later")).filter((r) => r.step === 0);
    expect(later).toHaveLength(1);
    expect(wakePrompt(later[0]!)).toContain('"second ocw-scenario:res-later"');
    expect(wakePrompt(later[0]!)).toContain('"third ocw-scenario:res-later"');
    const slow = (await model().requests("res-slow")).filter((r) => r.step === 0);
    expect(slow).toHaveLength(1);
    expect(wakePrompt(slow[0]!)).not.toContain("second");
    const laterStart = (await keeperStatus()).lastTurn!.startedAtMs;
    expect(laterStart - slowStart).toBeGreaterThanOrEqual(E2E_RESIDENT.config.minIntervalSec * 1000);
    await until(
      "the mark is gone after the turn",
      async () => !(await tags(ann.page)).includes(`${isolate("Keeper")} · AI${THINKING_MARK}`),
    );
  }, 600_000);

  it("no more than maxTurnsPerHour turns: the next one waits, the news kept", async () => {
    await model().define("res-fifth", [
      { toolCalls: [{ name: "ocw_chat_send", arguments: { message: "Fifth." } }] },
      { text: "done" },
    ]);
    await model().define("res-sixth", [{ text: "too soon" }]);
    await until(
      "the interval since the last turn passed",
      async () => {
        const keeper = await keeperStatus();
        return keeper.state === "awake" && Date.now() - keeper.lastTurn!.startedAtMs > 9000;
      },
      300_000,
    );
    await say(ann.page, "one more ocw-scenario:res-fifth");
    await until("the fifth answer", () => heard(ann.page, "Fifth."), 300_000);
    await until("the fifth turn over", async () => (await keeperStatus()).state === "awake", 300_000);
    expect((await keeperStatus()).turnsLastHour).toBe(E2E_RESIDENT.config.maxTurnsPerHour);
    await say(ann.page, "and another ocw-scenario:res-sixth");
    await until("the sixth is pending", async () => (await keeperStatus()).pending === 1);
    // The pacing's own word for why it waits: the hour's cap, so its timer is set for when the oldest
    // turn leaves the hour, not for the least interval.
    expect(await keeperStatus()).toMatchObject({
      state: "awake",
      pending: 1,
      turnsLastHour: 5,
      waitingFor: "hourly_cap",
    });
    expect(await model().requests("res-sixth")).toEqual([]);
  }, 600_000);
});
