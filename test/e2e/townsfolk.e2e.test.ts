// A town with people in it (issue #41), through the gateway's own agent loop with the scripted model:
// a person who walks from the lobby into the town and up to Tilly is greeted (the approach rule); Bram,
// asked to come over, walks up to Tilly and the two exchange a line each within the world's talk
// budget, which the operator status shows; "Tilly, take me to the café" makes her say so and walk off
// toward the café, whose tile her wake prompt named. "Guide, take me to the café" said in the lobby:
// the Guide says so and steps on the portal to the town, is woken there to go on, and walks to the
// café with the person following; left alone it walks home to the lobby by itself. The people are
// real WebSocket players; the town watcher (an HTTP agent) reads where the residents stand.
import { afterAll, describe, expect, it } from "vitest";
import { until } from "../support/browser.ts";
import { joinPerson, type Person } from "../support/person.ts";
import { scriptedModelClient } from "../support/scripted-model.ts";
import { E2E_TALK_TURNS_PER_HOUR, E2E_TOWNSFOLK, gateway } from "./fixtures.ts";
import { answer, betweenTurns, call, residentStatus } from "./resident-calls.ts";

const model = () => scriptedModelClient(gateway().modelOrigin);
const { tilly, bram, guide } = E2E_TOWNSFOLK;
/** A turn through the real agent loop on a busy 2-core machine: seconds, now and then a minute. */
const TURN_MS = 120_000;
const PERSON = `Wanderer ${Date.now().toString(36).slice(-4)}`;
/** The lobby's portal to the town; it sets a traveller down at the town gate. */
const TO_TOWN = { tx: 1, ty: 16 };
const BY_TILLY = { tx: 53, ty: 27 };
const CAFE = { tx: 10, ty: 7 };

let person: Person | undefined;
let visitor: Person | undefined;
afterAll(async () => {
  person?.ws.close();
  visitor?.ws.close();
  // Leave the town as it was found: the watcher leaves (Tilly was sent home by a test, the Guide
  // walked home by itself), from wherever it stands last.
  await call("agent_tf", "leave", { roomId: "town" }).catch(() => undefined);
  await call("agent_tf", "leave", { roomId: "lobby" }).catch(() => undefined);
});

interface Seen {
  id: string;
  name: string;
  tile?: { tx: number; ty: number };
}

/** Everyone in the town (or `roomId`), as the watcher (an HTTP agent standing there) observes them. */
async function town(roomId = "town"): Promise<Seen[]> {
  const gw = gateway();
  const res = await fetch(`${gw.baseUrl}/aic/v0.1/observe`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${gw.agents.agent_tf!.token}` },
    body: JSON.stringify({ agentId: "agent_tf", roomId, radius: 2000, detail: "lite" }),
  });
  const json = (await res.json()) as { status: string; data?: { nearby: { entity: Seen }[] } };
  return json.status === "ok" ? json.data!.nearby.map((n) => n.entity) : [];
}

/** Where `id` stands (a rate-limited look is "not yet"). */
const tileOf = (id: string) =>
  until(`${id}'s tile`, async () => (await town()).find((e) => e.id === id)?.tile, 10_000);
const heard = (from: string, message: string) =>
  person?.heard.some((h) => h.from === from && h.message === message) ?? false;

describe("a town with people in it: greeted, residents talk, walked to the café (#41)", () => {
  it("a person who walks up to Tilly is greeted", async () => {
    await model().define("tf-tilly", answer("Welcome to the town, traveller!"));
    await call("agent_tf", "join", { roomId: "town" });
    person = await joinPerson(gateway().baseUrl, PERSON);
    // Through the lobby's west portal into the town, then up to Tilly.
    person.walkTo(TO_TOWN.tx, TO_TOWN.ty);
    const me = await until(
      "the person in the town",
      async () => (await town()).find((e) => e.name === PERSON),
      60_000,
    );
    person.walkTo(BY_TILLY.tx, BY_TILLY.ty);
    await until(
      "Tilly's greeting",
      async () => heard(tilly.entityId, "Welcome to the town, traveller!"),
      TURN_MS,
    );
    const [greeting] = await model().requests("tf-tilly");
    const prompt = JSON.stringify(greeting?.body.messages);
    expect(prompt).toContain(`${PERSON.slice(0, 16)} (person`);
    expect(prompt).toContain("came near you");
    expect(me.id).toMatch(/^hum_/);
  }, 200_000);

  it("Bram walks over when asked, and the two exchange a line each within the talk budget (status)", async () => {
    await betweenTurns(tilly.agentId);
    await model().define("tf-bram-go", [
      { toolCalls: [{ name: "ocw_move_to", arguments: { tx: 52, ty: 31 } }] },
      { text: "done" },
    ]);
    await model().define("tf-bram", answer("Good day, Tilly! The lamps are lit."));
    await model().define("tf-tilly", answer("Good day to you, Bram."));
    person!.say(`Bram, please come over here ocw-scenario:tf-bram-go`);
    // Bram may open while still walking up, out of the person's hearing: Tilly hearing it is the check.
    await until(
      "Bram's line, heard by Tilly",
      async () =>
        (await model().requests("tf-tilly")).some((r) =>
          JSON.stringify(r.body.messages).includes("Good day, Tilly! The lamps are lit."),
        ),
      TURN_MS,
    );
    await until("Tilly's reply", async () => heard(tilly.entityId, "Good day to you, Bram."), TURN_MS);
    await betweenTurns(bram.agentId);
    await betweenTurns(tilly.agentId);
    // Bram opened (his id sorts first) on meeting her; she answered his line; her reply went unanswered.
    const bramTurns = await model().requests("tf-bram");
    expect(JSON.stringify(bramTurns[0]?.body.messages)).toMatch(
      /Tilly \(AI, \d tiles\), a resident, came near you/,
    );
    const tillyTurns = await model().requests("tf-tilly");
    expect(JSON.stringify(tillyTurns.at(-1)?.body.messages)).toContain(
      'a resident, said near you: \\"Good day, Tilly! The lamps are lit.\\"',
    );
    expect(bramTurns.filter((r) => r.step === 0)).toHaveLength(1);
    const gw = gateway();
    const res = await fetch(`${gw.baseUrl}/openclawworld/admin/status`, {
      headers: { authorization: `Bearer ${gw.gatewayToken}` },
    });
    const status = (await res.json()) as {
      data: {
        residentBudget: {
          talk: {
            turnsLastHour: number;
            maxTurnsPerHour: number;
            pairs?: { between: [string, string]; nextAtMs: number }[];
          };
        };
      };
    };
    // Spent for the hour, and the pair waits before it talks again (the status says until when).
    const talk = status.data.residentBudget.talk;
    expect(talk).toMatchObject({
      turnsLastHour: E2E_TALK_TURNS_PER_HOUR,
      maxTurnsPerHour: E2E_TALK_TURNS_PER_HOUR,
    });
    const waiting = JSON.stringify(talk.pairs ?? []);
    expect(waiting).toContain(bram.agentId);
    expect(waiting).toContain(tilly.agentId);
    expect((await residentStatus(bram.agentId)).state).toBe("awake");
  }, 300_000);

  it('"Tilly, take me to the café": she says so and walks toward the café', async () => {
    await betweenTurns(tilly.agentId);
    const start = await tileOf(tilly.entityId);
    await model().define("tf-walk", [
      {
        toolCalls: [
          { name: "ocw_chat_send", arguments: { message: "Follow me, the café is this way!" } },
          { name: "ocw_move_to", arguments: CAFE },
        ],
      },
      { text: "done" },
    ]);
    person!.say("Tilly, take me to the café ocw-scenario:tf-walk");
    await until(
      "Tilly's answer",
      async () => heard(tilly.entityId, "Follow me, the café is this way!"),
      TURN_MS,
    );
    // Her prompt named the café's tile (the places of her room), the tile she walks to.
    const [asked] = await model().requests("tf-walk");
    expect(JSON.stringify(asked?.body.messages)).toContain(`Café ${CAFE.tx},${CAFE.ty}`);
    const distance = (t: { tx: number; ty: number }) => Math.abs(t.tx - CAFE.tx) + Math.abs(t.ty - CAFE.ty);
    await until(
      "Tilly on her way to the café",
      async () => {
        const now = (await town()).find((e) => e.id === tilly.entityId)?.tile;
        return now && distance(now) <= distance(start) - 6;
      },
      30_000,
    );
    // The person walks along behind her.
    const her = await tileOf(tilly.entityId);
    person!.walkTo(her.tx, her.ty);
    // Then she is sent home, so the town's other files find the café as it was.
    await betweenTurns(tilly.agentId);
    await model().define("tf-home", [
      {
        toolCalls: [
          { name: "ocw_move_to", arguments: { tx: tilly.config.home.tx, ty: tilly.config.home.ty } },
        ],
      },
      { text: "done" },
    ]);
    person!.say("Tilly, thank you, you can go home now ocw-scenario:tf-home");
    await until("Tilly walking home", async () => (await model().requests("tf-home")).length >= 2, TURN_MS);
  }, 300_000);

  it('"Guide, take me to the café" in the lobby: through the portal to the town, the person following; then home alone', async () => {
    // The café is in the town: the Guide's prompt names it under the portal, and it is woken again
    // on the other side to go on (its session holds where it was heading).
    await model().define("tf-portal", [
      {
        toolCalls: [
          {
            name: "ocw_chat_send",
            arguments: { message: "The café is in the town: follow me through the portal!" },
          },
          { name: "ocw_move_to", arguments: TO_TOWN },
        ],
      },
      { text: "done" },
      { toolCalls: [{ name: "ocw_move_to", arguments: CAFE }] },
      { text: "done" },
    ]);
    // The watcher in the town (it is there after the first test; this one may run alone).
    await call("agent_tf", "join", { roomId: "town" }).catch(() => undefined);
    const visitorName = `Newcomer ${PERSON.slice(-4)}`;
    // A 503 (Retry-After) while the world is still starting (this test may run first) is "not yet".
    visitor = await until(
      "the person in the lobby",
      () => joinPerson(gateway().baseUrl, visitorName).catch(() => undefined),
      60_000,
    );
    visitor.say("Guide, take me to the café ocw-scenario:tf-portal");
    await until(
      "the Guide's answer",
      async () =>
        visitor!.heard.some(
          (h) =>
            h.from === guide.entityId &&
            h.message === "The café is in the town: follow me through the portal!",
        ),
      TURN_MS,
    );
    const [asked] = await model().requests("tf-portal");
    expect(JSON.stringify(asked?.body.messages)).toMatch(/Town \(portal 1,16\): [^"]*Café/);
    // The person follows it through the portal, then after it to wherever it walks in the town.
    visitor.walkTo(TO_TOWN.tx, TO_TOWN.ty);
    const near = (t: { tx: number; ty: number } | undefined) =>
      t !== undefined && Math.max(Math.abs(t.tx - CAFE.tx), Math.abs(t.ty - CAFE.ty)) <= 2;
    let last = "";
    await until(
      "the Guide and the person at the café",
      async () => {
        const seen = await town();
        const it = seen.find((e) => e.id === guide.entityId)?.tile;
        const me = seen.find((e) => e.name === visitorName)?.tile;
        // After the Guide while it is in sight, else on to the café it named.
        if (me) visitor!.walkTo((it ?? CAFE).tx, (it ?? CAFE).ty);
        const now = JSON.stringify({ it, me });
        if (seen.length > 0 && !last.endsWith(now)) last += ` ${now}`;
        return near(it) && near(me);
      },
      TURN_MS,
    ).catch(async (error: Error) => {
      const status = await residentStatus(guide.agentId);
      const asked = (await model().requests("tf-portal")).map(
        (r) => `${r.step}: ${JSON.stringify(r.body.messages?.at(-1)).slice(0, 300)}`,
      );
      throw new Error(`${error.message}; seen ${last}; steps ${asked}; ${JSON.stringify(status)}`);
    });
    // On arriving it was told it came through the portal, and the town's places with their tiles.
    const onward = (await model().requests("tf-portal")).find((r) =>
      JSON.stringify(r.body.messages).includes("You came through the portal into this room"),
    );
    expect(JSON.stringify(onward?.body.messages)).toContain(`Café ${CAFE.tx},${CAFE.ty}`);
    // The person walks off: alone for its returnHomeAfterSec, it walks home through the portal.
    visitor.walkTo(CAFE.tx + 12, CAFE.ty + 12);
    await until(
      "the Guide out of the town",
      async () => {
        const seen = await town();
        return seen.length > 0 && !seen.some((e) => e.id === guide.entityId);
      },
      90_000,
    );
    await call("agent_tf", "leave", { roomId: "town" });
    await call("agent_tf", "join", { roomId: "lobby" });
    const home = guide.config.home;
    await until(
      "the Guide at home in the lobby",
      async () => {
        const it = (await town("lobby")).find((e) => e.id === guide.entityId)?.tile;
        return it?.tx === home.tx && it.ty === home.ty;
      },
      60_000,
    );
    await betweenTurns(guide.agentId);
    expect((await model().requests("tf-portal")).filter((r) => r.step === 0)).toHaveLength(1);
  }, 400_000);
});
