/**
 * Seeded randomness for the simulator. Everything random derives from the one
 * simulator seed through named sub-streams (`Random.derive(seed, "day", date)`), so a
 * flight's data depends only on the seed and what it is (its day, its index), never
 * on the order in which other things were generated. Never `Math.random`.
 */
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";

/** 32-bit FNV-1a of a text, then an avalanche mix so close inputs give far seeds. */
export function hashSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return avalanche(h);
}

/** Mixes a number into a seed (murmur3 finaliser): cheap per-item seeds below a derived one. */
export function mixSeed(seed: number, n: number): number {
  return avalanche((seed ^ Math.imul(n | 0, 0x9e3779b1)) | 0);
}

/** The murmur3 32-bit finaliser: every input bit flips about half the output bits. */
function avalanche(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

/** A seeded pseudo-random stream (xoroshiro128+) with the draws the generator needs. */
export class Random {
  private readonly rng: RandomGenerator;

  constructor(seed: number) {
    this.rng = xoroshiro128plus(seed | 0);
  }

  /** An independent stream named by `parts` below `seed`. */
  static derive(seed: number, ...parts: readonly (string | number)[]): Random {
    return new Random(hashSeed(`${seed}|${parts.join("|")}`));
  }

  /** Integer in `[from, to]`, both included. */
  int(from: number, to: number): number {
    return to <= from ? from : uniformInt(this.rng, from, to);
  }

  /** Float in `[0, 1)`. */
  float(): number {
    return uniformFloat64(this.rng);
  }

  /** Float in `[from, to)`. */
  between(from: number, to: number): number {
    return from + (to - from) * this.float();
  }

  /** True with probability `p` (clamped to [0, 1]). */
  chance(p: number): boolean {
    return p > 0 && this.float() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError("Random.pick: empty list");
    return item;
  }

  /** Index drawn with probability proportional to `weights[i]`. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** Normally distributed value (Box–Muller). */
  normal(mean: number, sd: number): number {
    const u = 1 - this.float();
    const v = this.float();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Poisson-distributed count with mean `mean` (Knuth; fine for small means). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    const limit = Math.exp(-Math.min(mean, 30));
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }

  /** `n` random decimal digits. */
  digits(n: number): string {
    let out = "";
    while (out.length < n) out += String(this.int(0, 999_999)).padStart(6, "0");
    return out.slice(0, n);
  }

  /** Fills a pattern: `#` → digit, `?` → capital letter, anything else kept. */
  pattern(template: string): string {
    let out = "";
    for (const ch of template) {
      if (ch === "#") out += String(this.int(0, 9));
      else if (ch === "?") out += String.fromCharCode(65 + this.int(0, 25));
      else out += ch;
    }
    return out;
  }
}
