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

/** Integers drawn from a hash of the world's seed, a key (a creature's id) and a moment (sim ms):
 * nothing to keep in a snapshot, the same draws in every replay of that moment, and they never
 * advance the world's generator, so a creature added to a map shifts none of the world's other
 * random choices (spawns, ids). `n` numbers the draws made at one moment. */
export function keyedInt(
  seed: number,
  key: string,
  moment: number,
  n: number,
  from: number,
  to: number,
): number {
  let h = mix(seed ^ 0x9e3779b9);
  for (let i = 0; i < key.length; i++) h = mix(h ^ key.charCodeAt(i));
  h = mix(h ^ (moment % 0x1_0000_0000));
  h = mix(h ^ Math.floor(moment / 0x1_0000_0000));
  h = mix(h ^ n);
  return from + (h % (to - from + 1));
}

/** A 32-bit finalizer (murmur3's fmix32): every input bit moves every output bit. */
function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
