import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { PROMPT_LIMITS, type PromptPerson, wakePrompt } from "./prompt.ts";
import type { Happening } from "./wake.ts";

const ann: PromptPerson = { name: "Ann", kind: "human", tiles: 2 };

describe("the wake prompt", () => {
  it("says who it is, where, who spoke and what, and how to answer", () => {
    const prompt = wakePrompt({
      agentId: "guide",
      name: "Guide",
      roomName: "Lobby",
      tile: { tx: 17, ty: 12 },
      happenings: [
        {
          reason: "spoken_nearby",
          tick: 3,
          roomId: "lobby",
          fromEntityId: "hum_a",
          message: "hello",
          from: ann,
        },
      ],
      nearby: [ann],
    });
    expect(prompt).toContain(
      'You are Guide, a resident of the world (agent "guide"), in Lobby at tile 17,12',
    );
    expect(prompt).toContain('- Ann (person, 2 tiles) said near you: "hello"');
    expect(prompt).toContain("Near you now: Ann (person, 2 tiles).");
    expect(prompt).toContain("ocw_chat_send");
  });

  it("tells a town resident who it is, that it may walk with someone and where the places are", () => {
    const prompt = wakePrompt({
      agentId: "cafe",
      name: "Mara",
      roomName: "Town",
      tile: { tx: 10, ty: 8 },
      happenings: [
        {
          reason: "resident_near",
          tick: 1,
          roomId: "town",
          fromEntityId: "agt_bram",
          from: { name: "Bram", kind: "agent", tiles: 3 },
        },
      ],
      nearby: [],
      persona: "You keep the café.",
      places: [
        { name: "Café", tx: 10, ty: 7 },
        { name: "Library", tx: 45, ty: 8 },
      ],
    });
    expect(prompt).toContain("\nYou keep the café.\n");
    expect(prompt).toContain("- Bram (AI, 3 tiles), a resident, came near you");
    expect(prompt).toContain("ocw_move_to the place's tile. Places here: Café 10,7; Library 45,8.");
  });

  it("names places a portal away by room, with the portal to take, and says to go on after crossing", () => {
    const town = { roomName: "Town", portal: { tx: 1, ty: 16 } };
    const prompt = wakePrompt({
      agentId: "guide",
      name: "Guide",
      roomName: "Lobby",
      tile: { tx: 4, ty: 16 },
      happenings: [{ reason: "arrived", tick: 9, roomId: "lobby", fromEntityId: "agt_guide", from: ann }],
      nearby: [],
      places: [
        { name: "Plaza", tx: 23, ty: 16 },
        { name: "Market", tx: 27, ty: 32, beyond: town },
        { name: "Café", tx: 10, ty: 7, beyond: town },
      ],
    });
    expect(prompt).toContain("Places here: Plaza 23,16.");
    expect(prompt).toContain(
      "Elsewhere, through a portal (ocw_move_to its tile; you are told the way on there): Town (portal 1,16): Market, Café.",
    );
    expect(prompt).toContain("- You came through the portal into this room: go on to the place");
  });

  it("one that may walk with someone (ocw_lead) is told to lead whom, by entity id", () => {
    const prompt = wakePrompt({
      agentId: "guide",
      name: "Guide",
      roomName: "Lobby",
      tile: { tx: 4, ty: 16 },
      happenings: [{ reason: "name_said", tick: 9, roomId: "lobby", fromEntityId: "hum_ann", from: ann }],
      nearby: [],
      places: [
        { name: "Plaza", tx: 23, ty: 16 },
        { name: "Café", tx: 10, ty: 7, beyond: { roomName: "Town", portal: { tx: 1, ty: 16 } } },
      ],
      leadWith: "hum_ann",
    });
    expect(prompt).toContain(
      'say so, then ocw_lead the place\'s tile with "hum_ann": it waits for them. Places here: Plaza 23,16.',
    );
    expect(prompt).toContain(
      "Elsewhere, through a portal (ocw_lead its tile; you are told the way on there)",
    );
  });

  it("stays within 300 o200k tokens at its worst: long names, long messages, many happenings", () => {
    const long = (c: string) => c.repeat(64);
    const who: PromptPerson = { name: long("W"), kind: "agent", tiles: 12 };
    const happening = (i: number): Happening & { from: PromptPerson } => ({
      reason: i % 2 ? "name_said" : "spoken_nearby",
      tick: i,
      roomId: "lobby",
      fromEntityId: `hum_${i}`,
      message: "Ω≈ç√∫ lorem ipsum dolor sit amet 🎉 ".repeat(20),
      from: who,
    });
    const worst = {
      agentId: "a".repeat(64),
      name: long("N"),
      roomName: long("R"),
      tile: { tx: 4095, ty: 4095 },
      happenings: Array.from({ length: 32 }, (_, i) => happening(i)),
      nearby: Array.from({ length: 8 }, () => who),
    };
    const prompt = wakePrompt(worst);
    expect(prompt).toContain(`(${32 - PROMPT_LIMITS.happenings} earlier things left out)`);
    const tokens = encode(prompt).length;
    expect(tokens).toBeLessThanOrEqual(300);
    // A town resident's: its persona (the operator's words, at most 240 characters of plain prose)
    // and the places it may walk to (long names, clipped), here and a portal away, add no more
    // than 300 tokens.
    const persona =
      "You keep the café by the square; you know the regulars, the day's bake and the way to everywhere. ".repeat(
        4,
      );
    const place = (i: number) => ({ name: `Place ${long("P")} ${i}`, tx: 4095, ty: 4095 });
    const through = (room: number) => ({
      roomName: `Room ${long("R")} ${room}`,
      portal: { tx: 4095, ty: 4095 },
    });
    const places = [
      ...Array.from({ length: 12 }, (_, i) => place(i)),
      // Three rooms a portal away, twelve places each: two rooms are told, eight names each.
      ...Array.from({ length: 36 }, (_, i) => ({ ...place(i), beyond: through(i % 3) })),
    ];
    // One who may walk with someone (ocw_lead) is told whom by id and name.
    const leadWith = `hum_${"x".repeat(60)}`;
    const town = encode(wakePrompt({ ...worst, persona, places, leadWith })).length;
    console.log(`worst wake prompt: ${tokens} tokens; with a persona and places: ${town}`);
    expect(town - tokens).toBeLessThanOrEqual(300);
  });
});
