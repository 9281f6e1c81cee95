// The world's only source of randomness: a seeded xoroshiro128+ whose state lives in the snapshot.
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus, xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";
import type { JumpableRandomGenerator } from "pure-rand/types/JumpableRandomGenerator";

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export class WorldRng {
  private gen: JumpableRandomGenerator;
  private constructor(gen: JumpableRandomGenerator) {
    this.gen = gen;
  }
  static fromSeed(seed: number): WorldRng {
    return new WorldRng(xoroshiro128plus(seed | 0));
  }
  static fromState(state: readonly number[]): WorldRng {
    return new WorldRng(xoroshiro128plusFromState(state));
  }
  state(): number[] {
    return [...this.gen.getState()];
  }
  /** Uniform integer in [from, to]. */
  int(from: number, to: number): number {
    return uniformInt(this.gen, from, to);
  }
  /** `length` characters from [A-Za-z0-9]. */
  idChars(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += ID_ALPHABET[this.int(0, ID_ALPHABET.length - 1)];
    return out;
  }
}
