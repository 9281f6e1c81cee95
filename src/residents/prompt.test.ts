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
    const prompt = wakePrompt({
      agentId: "a".repeat(64),
      name: long("N"),
      roomName: long("R"),
      tile: { tx: 4095, ty: 4095 },
      happenings: Array.from({ length: 32 }, (_, i) => happening(i)),
      nearby: Array.from({ length: 8 }, () => who),
    });
    expect(prompt).toContain(`(${32 - PROMPT_LIMITS.happenings} earlier things left out)`);
    expect(encode(prompt).length).toBeLessThanOrEqual(300);
  });
});
