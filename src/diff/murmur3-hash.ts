/**
 * MurmurHash3 x86 128-bit (Austin Appleby, SMHasher) over a stream of 32-bit words.
 * The words are hashed exactly as the reference hashes their little-endian bytes, so
 * the reference's test vectors check this implementation. Not a cryptographic hash:
 * it spreads ids of trusted data well, fast (no native call, no intermediate string);
 * `eventId` argues why that is enough there.
 */

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * A reusable hash input: `reset`, feed words and strings, then `digest…`. Words are
 * buffered and hashed in one pass at the end, which keeps the mixing loop tight.
 */
export class Murmur3Hash {
  private buffer = new Int32Array(256);
  private length = 0;
  private seed: number;

  constructor(seed = 0) {
    this.seed = seed | 0;
  }

  /** Starts a new hash with the seed (an unsigned 32-bit number). */
  reset(seed: number): this {
    this.seed = seed | 0;
    this.length = 0;
    return this;
  }

  /** Feeds one 32-bit word, as its four little-endian bytes. */
  word(value: number): this {
    if (this.length === this.buffer.length) this.grow(1);
    this.buffer[this.length++] = value;
    return this;
  }

  /** Feeds a string's UTF-16 code units, two to a word (the last one zero-padded). */
  units(text: string): this {
    const n = text.length;
    const words = (n + 1) >> 1;
    if (this.length + words > this.buffer.length) this.grow(words);
    const buffer = this.buffer;
    let at = this.length;
    let i = 0;
    // Stryker disable next-line EqualityOperator: "<=" steps past the end, reading NaN, which packs as 0 (the other ways are killed)
    for (; i + 1 < n; i += 2) {
      buffer[at++] = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16);
    }
    if (i < n) buffer[at++] = text.charCodeAt(i);
    this.length = at;
    return this;
  }

  /**
   * Feeds a string so that no other string or word sequence feeds the same words: a tag
   * saying how the code units are packed, the length, then the units — four to a word
   * (`latin1Tag`) when all are below 256, as for the ASCII text ids are mostly made of,
   * else two to a word (`utf16Tag`). The last word is zero-padded.
   */
  string(text: string, latin1Tag: number, utf16Tag: number): this {
    const n = text.length;
    const words = 2 + ((n + 1) >> 1);
    if (this.length + words > this.buffer.length) this.grow(words);
    const buffer = this.buffer;
    const start = this.length;
    buffer[start + 1] = n;
    let at = start + 2;
    let all = 0;
    let i = 0;
    // Stryker disable next-line EqualityOperator: "<=" steps past the end, reading NaN, which packs as 0 as the tail loop does (the other ways are killed)
    for (; i + 3 < n; i += 4) {
      const a = text.charCodeAt(i);
      const b = text.charCodeAt(i + 1);
      const c = text.charCodeAt(i + 2);
      const d = text.charCodeAt(i + 3);
      all |= a | b | c | d;
      buffer[at++] = a | (b << 8) | (c << 16) | (d << 24);
    }
    if (i < n) {
      let word = 0;
      // Stryker disable next-line EqualityOperator: "<=" steps past the end, reading NaN, which packs as 0 (the other ways are killed)
      for (let shift = 0; i < n; i++, shift += 8) {
        const a = text.charCodeAt(i);
        all |= a;
        word |= a << shift;
      }
      buffer[at++] = word;
    }
    if (all <= 0xff) {
      buffer[start] = latin1Tag;
      this.length = at;
      return this;
    }
    buffer[start] = utf16Tag;
    this.length = start + 2;
    return this.units(text);
  }

  /** The hash's 16 bytes (h1…h4, each little-endian) in unpadded base64url: 22 characters. */
  digestBase64url(): string {
    this.hash();
    return base64url16(out);
  }

  /** The hash as h1…h4, unsigned 32-bit numbers. */
  digestWords(): [number, number, number, number] {
    this.hash();
    return [
      (out[0] as number) >>> 0,
      (out[1] as number) >>> 0,
      (out[2] as number) >>> 0,
      (out[3] as number) >>> 0,
    ];
  }

  private grow(atLeast: number): void {
    // Stryker disable next-line ArithmeticOperator: "/ 2" leaves room for what is fed too, growing more often (the other way is killed)
    const bigger = new Int32Array(Math.max(this.buffer.length * 2, this.length + atLeast));
    bigger.set(this.buffer.subarray(0, this.length));
    this.buffer = bigger;
  }

  /** Hashes the buffered words into `out`. */
  private hash(): void {
    const data = this.buffer;
    const length = this.length;
    let h1 = this.seed;
    let h2 = this.seed;
    let h3 = this.seed;
    let h4 = this.seed;
    const blocks = length & ~3;
    let i = 0;
    for (; i < blocks; i += 4) {
      let k1 = Math.imul(data[i] as number, C1);
      k1 = Math.imul((k1 << 15) | (k1 >>> 17), C2);
      h1 ^= k1;
      h1 = (h1 << 19) | (h1 >>> 13);
      h1 = (Math.imul(h1 + h2, 5) + 0x561ccd1b) | 0;
      let k2 = Math.imul(data[i + 1] as number, C2);
      k2 = Math.imul((k2 << 16) | (k2 >>> 16), C3);
      h2 ^= k2;
      h2 = (h2 << 17) | (h2 >>> 15);
      h2 = (Math.imul(h2 + h3, 5) + 0x0bcaa747) | 0;
      let k3 = Math.imul(data[i + 2] as number, C3);
      k3 = Math.imul((k3 << 17) | (k3 >>> 15), C4);
      h3 ^= k3;
      h3 = (h3 << 15) | (h3 >>> 17);
      h3 = (Math.imul(h3 + h4, 5) + 0x96cd1c35) | 0;
      let k4 = Math.imul(data[i + 3] as number, C4);
      k4 = Math.imul((k4 << 18) | (k4 >>> 14), C1);
      h4 ^= k4;
      h4 = (h4 << 13) | (h4 >>> 19);
      h4 = (Math.imul(h4 + h1, 5) + 0x32ac3b17) | 0;
    }
    // The tail: one to three words, mixed as the reference mixes its tail bytes.
    const tail = length - blocks;
    if (tail >= 3) {
      const k3 = Math.imul(data[i + 2] as number, C3);
      h3 ^= Math.imul((k3 << 17) | (k3 >>> 15), C4);
    }
    if (tail >= 2) {
      const k2 = Math.imul(data[i + 1] as number, C2);
      h2 ^= Math.imul((k2 << 16) | (k2 >>> 16), C3);
    }
    if (tail >= 1) {
      const k1 = Math.imul(data[i] as number, C1);
      h1 ^= Math.imul((k1 << 15) | (k1 >>> 17), C2);
    }
    const bytes = length * 4;
    h1 ^= bytes;
    h2 ^= bytes;
    h3 ^= bytes;
    h4 ^= bytes;
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    h1 = fmix32(h1);
    h2 = fmix32(h2);
    h3 = fmix32(h3);
    h4 = fmix32(h4);
    h1 = (h1 + h2 + h3 + h4) | 0;
    out[0] = h1;
    out[1] = (h2 + h1) | 0;
    out[2] = (h3 + h1) | 0;
    out[3] = (h4 + h1) | 0;
  }
}

/** The last hash's h1…h4 (hashing is synchronous, so one shared result suffices). */
const out = new Int32Array(4);

function fmix32(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

const CODES = Array.from(BASE64URL, (c) => c.charCodeAt(0));
const bytes = new Uint8Array(16);

/** Unpadded base64url of four words written as 16 little-endian bytes. */
function base64url16(words: Int32Array): string {
  // Stryker disable next-line EqualityOperator: "<=" reads a fifth word, 0, and writes past the 16 bytes, which a typed array ignores (the other ways are killed)
  for (let w = 0; w < 4; w++) {
    const word = words[w] as number;
    bytes[w * 4] = word;
    bytes[w * 4 + 1] = word >>> 8;
    bytes[w * 4 + 2] = word >>> 16;
    bytes[w * 4 + 3] = word >>> 24;
  }
  const t0 = triple(0);
  const t1 = triple(3);
  const t2 = triple(6);
  const t3 = triple(9);
  const t4 = triple(12);
  const last = bytes[15] as number;
  // One call with every code as an argument: several times faster than building the
  // text piecewise or through a Buffer.
  return String.fromCharCode(
    sextet(t0, 18),
    sextet(t0, 12),
    sextet(t0, 6),
    sextet(t0, 0),
    sextet(t1, 18),
    sextet(t1, 12),
    sextet(t1, 6),
    sextet(t1, 0),
    sextet(t2, 18),
    sextet(t2, 12),
    sextet(t2, 6),
    sextet(t2, 0),
    sextet(t3, 18),
    sextet(t3, 12),
    sextet(t3, 6),
    sextet(t3, 0),
    sextet(t4, 18),
    sextet(t4, 12),
    sextet(t4, 6),
    sextet(t4, 0),
    sextet(last, 2),
    sextet(last << 4, 0),
  );
}

const triple = (at: number): number =>
  ((bytes[at] as number) << 16) | ((bytes[at + 1] as number) << 8) | (bytes[at + 2] as number);

const sextet = (bits: number, shift: number): number => CODES[(bits >>> shift) & 63] as number;
