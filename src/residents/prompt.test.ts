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
    // and the places it may walk to (long names, clipped) add no more than 200 tokens.
    const persona =
      "You keep the café by the square; you know the regulars, the day's bake and the way to everywhere. ".repeat(
        4,
      );
    const places = Array.from({ length: 12 }, (_, i) => ({
      name: `Place ${long("P")} ${i}`,
      tx: 4095,
      ty: 4095,
    }));
    const town = encode(wakePrompt({ ...worst, persona, places })).length;
    console.log(`worst wake prompt: ${tokens} tokens; with a persona and places: ${town}`);
    expect(town - tokens).toBeLessThanOrEqual(200);
  });
});
