import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Murmur3Hash } from "../../src/diff/murmur3-hash.js";

/**
 * MurmurHash3_x86_128 over bytes, ported line by line from SMHasher's reference
 * (MurmurHash3.cpp): the oracle the word-streaming implementation must match.
 */
function referenceX86x128(bytes: Uint8Array, seed: number): number[] {
  const c1 = 0x239b961b;
  const c2 = 0xab0e9789;
  const c3 = 0x38b34ae5;
  const c4 = 0xa1e38b93;
  const rotl = (x: number, r: number): number => (x << r) | (x >>> (32 - r));
  const fmix = (h0: number): number => {
    let h = h0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return h ^ (h >>> 16);
  };
  const word = (i: number): number =>
    (bytes[i] ?? 0) |
    ((bytes[i + 1] ?? 0) << 8) |
    ((bytes[i + 2] ?? 0) << 16) |
    ((bytes[i + 3] ?? 0) << 24);
  let [h1, h2, h3, h4] = [seed | 0, seed | 0, seed | 0, seed | 0];
  const len = bytes.length;
  const blocks = Math.floor(len / 16);
  for (let b = 0; b < blocks; b++) {
    let k1 = word(b * 16);
    let k2 = word(b * 16 + 4);
    let k3 = word(b * 16 + 8);
    let k4 = word(b * 16 + 12);
    k1 = Math.imul(rotl(Math.imul(k1, c1), 15), c2);
    h1 ^= k1;
    h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    k2 = Math.imul(rotl(Math.imul(k2, c2), 16), c3);
    h2 ^= k2;
    h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    k3 = Math.imul(rotl(Math.imul(k3, c3), 17), c4);
    h3 ^= k3;
    h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    k4 = Math.imul(rotl(Math.imul(k4, c4), 18), c1);
    h4 ^= k4;
    h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  const tail = blocks * 16;
  const rest = len & 15;
  let [k1, k2, k3, k4] = [0, 0, 0, 0];
  for (let i = rest - 1; i >= 0; i--) {
    const byte = bytes[tail + i] as number;
    if (i >= 12) k4 ^= byte << ((i - 12) * 8);
    else if (i >= 8) k3 ^= byte << ((i - 8) * 8);
    else if (i >= 4) k2 ^= byte << ((i - 4) * 8);
    else k1 ^= byte << (i * 8);
  }
  if (rest > 12) h4 ^= Math.imul(rotl(Math.imul(k4, c4), 18), c1);
  if (rest > 8) h3 ^= Math.imul(rotl(Math.imul(k3, c3), 17), c4);
  if (rest > 4) h2 ^= Math.imul(rotl(Math.imul(k2, c2), 16), c3);
  if (rest > 0) h1 ^= Math.imul(rotl(Math.imul(k1, c1), 15), c2);
  h1 ^= len;
  h2 ^= len;
  h3 ^= len;
  h4 ^= len;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const bytesOf = (words: readonly number[]): Uint8Array => {
  const out = new Uint8Array(words.length * 4);
  const view = new DataView(out.buffer);
  words.forEach((w, i) => {
    view.setInt32(i * 4, w, true);
  });
  return out;
};

const wordsOf = (hash: Murmur3Hash, words: readonly number[]): Murmur3Hash => {
  for (const w of words) hash.word(w);
  return hash;
};

describe("MurmurHash3_x86_128 reference (the oracle)", () => {
  // Published x86_128 vectors (as Dovecot's test-murmurhash3.c lists them).
  const vectors: Array<[string, number, number[]]> = [
    ["", 0, [0, 0, 0, 0]],
    ["", 1, [0x88c4adec, 0x54d201b9, 0x54d201b9, 0x54d201b9]],
    ["", 0xffffffff, [0x051e08a9, 0x989d49f7, 0x989d49f7, 0x989d49f7]],
    ["\0\0\0\0", 0, [0xcc066f1f, 0x9e517840, 0x9e517840, 0x9e517840]],
    ["aaaa", 0x9747b28c, [0x36804cef, 0x2a61c224, 0x2a61c224, 0x2a61c224]],
    ["aaa", 0x9747b28c, [0x838389be, 0x9aad7f88, 0x9aad7f88, 0x9aad7f88]],
    ["a", 0x9747b28c, [0x084ef944, 0x21a1186e, 0x21a1186e, 0x21a1186e]],
    ["abcd", 0x9747b28c, [0x4795c529, 0xcec1885e, 0xcec1885e, 0xcec1885e]],
    ["Hello, world!", 0x9747b28c, [0x756d5460, 0xbb872216, 0xb7d48b7c, 0x53c8c636]],
    ["π".repeat(8), 0x9747b28c, [0xaf2ad325, 0x3a74df88, 0x38cc7534, 0xf197cc0d]],
    ["a".repeat(256), 0x9747b28c, [0xd3f2b7bb, 0xf666c0cc, 0xd4a40060, 0x5ec8d32a]],
  ];

  it.each(vectors)("hashes %j with seed %d to the published words", (text, seed, expected) => {
    expect(referenceX86x128(new TextEncoder().encode(text), seed)).toEqual(expected);
  });
});

describe("Murmur3Hash", () => {
  it("matches the published vectors whose length is whole words", () => {
    const h = new Murmur3Hash();
    expect(h.reset(1).digestWords()).toEqual([0x88c4adec, 0x54d201b9, 0x54d201b9, 0x54d201b9]);
    expect(h.reset(0).word(0).digestWords()).toEqual([
      0xcc066f1f, 0x9e517840, 0x9e517840, 0x9e517840,
    ]);
    expect(h.reset(0x9747b28c).word(0x61616161).digestWords()).toEqual([
      0x36804cef, 0x2a61c224, 0x2a61c224, 0x2a61c224,
    ]);
    const pi = new TextEncoder().encode("π".repeat(8));
    const view = new DataView(pi.buffer);
    h.reset(0x9747b28c);
    for (let i = 0; i < 16; i += 4) h.word(view.getInt32(i, true));
    expect(h.digestWords()).toEqual([0xaf2ad325, 0x3a74df88, 0x38cc7534, 0xf197cc0d]);
  });

  it("hashes any word stream as the reference hashes its little-endian bytes (property)", () => {
    fc.assert(
      fc.property(
        // Lengths across the whole range: past the first buffer (256 words) too.
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
          maxLength: 600,
          size: "max",
        }),
        fc.nat({ max: 2 ** 32 - 1 }),
        (words, seed) => {
          expect(wordsOf(new Murmur3Hash(), words).reset(seed).digestWords()).toEqual(
            referenceX86x128(new Uint8Array(0), seed),
          );
          const h = wordsOf(new Murmur3Hash().reset(seed), words);
          expect(h.digestWords()).toEqual(referenceX86x128(bytesOf(words), seed));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("feeds a string's UTF-16 code units as UTF-16LE bytes, zero-padded to a word", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 700, size: "max" }),
        // Words fed before it, so the string starts anywhere in the first buffer.
        fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), {
          maxLength: 300,
          size: "max",
        }),
        (text, before) => {
          const units = new Uint8Array(Math.ceil(text.length / 2) * 4);
          units.set(new Uint8Array(Buffer.from(text, "utf16le")));
          const h = wordsOf(new Murmur3Hash(7), before).units(text);
          expect(h.digestWords()).toEqual(
            referenceX86x128(new Uint8Array([...bytesOf(before), ...units]), 7),
          );
        },
      ),
    );
  });

  it("feeds a string self-delimited: tag, length, then four Latin-1 or two UTF-16 units a word", () => {
    const latin1 = "café-ÿ";
    const h = new Murmur3Hash(3).string(latin1, 11, 12);
    const packed = new Uint8Array(8);
    packed.set(Buffer.from(latin1, "latin1"));
    expect(h.digestWords()).toEqual(
      referenceX86x128(new Uint8Array([...bytesOf([11, latin1.length]), ...packed]), 3),
    );
    const wide = "gate Ω";
    const units = new Uint8Array(12);
    units.set(Buffer.from(wide, "utf16le"));
    expect(new Murmur3Hash(3).string(wide, 11, 12).digestWords()).toEqual(
      referenceX86x128(new Uint8Array([...bytesOf([12, wide.length]), ...units]), 3),
    );
  });

  it("lays out any string as that tag, length and packing, past the first buffer too (property)", () => {
    fc.assert(
      fc.property(
        // Any text; ASCII and Latin-1 text; and Latin-1 text with one wider unit anywhere.
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 1200, size: "max" }),
          fc.string({ unit: "grapheme-ascii", maxLength: 1200, size: "max" }),
          fc.string({
            unit: fc.constantFrom("a", "é", "ÿ", "\u0000", "Ω"),
            maxLength: 1200,
            size: "max",
          }),
        ),
        fc.string({ unit: "binary", maxLength: 600, size: "max" }),
        (text, before) => {
          const latin1 = text.split("").every((unit) => unit.charCodeAt(0) < 256);
          const body = latin1 ? Buffer.from(text, "latin1") : Buffer.from(text, "utf16le");
          const padded = new Uint8Array(Math.ceil(body.length / 4) * 4);
          padded.set(body);
          const prefix = Buffer.from(before, "utf16le");
          const prefixPadded = new Uint8Array(Math.ceil(prefix.length / 4) * 4);
          prefixPadded.set(prefix);
          const expected = new Uint8Array([
            ...prefixPadded,
            ...bytesOf([latin1 ? 1 : 2, text.length]),
            ...padded,
          ]);
          const h = new Murmur3Hash(9).units(before).string(text, 1, 2);
          expect(h.digestWords()).toEqual(referenceX86x128(expected, 9));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("lays out a short string right at the end of the first buffer", () => {
    // The buffer holds 256 words; a string of n units needs 2 + ⌈n/4⌉ (Latin-1) or
    // 2 + ⌈n/2⌉ (UTF-16) of them: every way of ending at, or one past, its end.
    for (let before = 248; before <= 256; before++) {
      for (const text of ["", "a", "ab", "abc", "abcd", "abcde", "Ω", "aΩ", "abcΩ", "abcdΩ"]) {
        const words = Array.from({ length: before }, (_, i) => i * 7919);
        const latin1 = [...text].every((unit) => unit.charCodeAt(0) < 256);
        const body = latin1 ? Buffer.from(text, "latin1") : Buffer.from(text, "utf16le");
        const padded = new Uint8Array(Math.ceil(body.length / 4) * 4);
        padded.set(body);
        const expected = new Uint8Array([
          ...bytesOf(words),
          ...bytesOf([latin1 ? 1 : 2, text.length]),
          ...padded,
        ]);
        const h = wordsOf(new Murmur3Hash(5), words).string(text, 1, 2);
        expect(h.digestWords()).toEqual(referenceX86x128(expected, 5));
      }
    }
  });

  it("writes the 16 bytes in base64url, 22 characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.nat(), (text, seed) => {
        const h = new Murmur3Hash();
        const words = h.reset(seed).units(text).digestWords();
        const bytes = Buffer.alloc(16);
        words.forEach((w, i) => {
          bytes.writeUInt32LE(w, i * 4);
        });
        const text64 = h.reset(seed).units(text).digestBase64url();
        expect(text64).toBe(bytes.toString("base64url"));
        expect(text64).toMatch(/^[A-Za-z0-9_-]{22}$/);
      }),
    );
  });

  it("starts afresh on reset, whatever was fed before", () => {
    const h = new Murmur3Hash(5);
    const first = h.units("x".repeat(2000)).digestBase64url();
    expect(h.reset(5).units("x".repeat(2000)).digestBase64url()).toBe(first);
    expect(h.reset(5).units("y").digestBase64url()).toBe(
      new Murmur3Hash(5).units("y").digestBase64url(),
    );
  });
});
