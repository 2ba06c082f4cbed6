/**
 * What the rules of one load share, and strings of their own. A consumer app writes
 * 100,000 passenger rules alike but for a flight and an address: their change filters,
 * flight filters, labels … are kept here under how they are written (`TreeReader.shared`),
 * so that rules written alike hold one frozen object and read it once.
 */

/**
 * V8 makes a substring of this many characters or more a view into the string it was
 * cut from (a sliced string), and a concatenation this long a pair of its parts; held
 * in a rule, such a string keeps the whole file text alive (40 MB for 100,000
 * passenger rules). Shorter ones are always copies.
 */
const VIEW_MIN_LENGTH = 13;

/**
 * A flat copy of `text`, holding nothing else alive. A JSON round trip copies any string
 * exactly, lone surrogates too (which `Buffer.from(text).toString()` replaces, and at
 * twice the time); `(" " + text).slice(1)` is a view again, into a copy: 32 B more.
 */
function copyOf(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/**
 * Freezes a part and everything in it. What is frozen already is frozen through: parts
 * are frozen whole, and the schedule bounds they hold are flat.
 */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/**
 * Shares equal strings and parts among the rules of one load (one directory, or one
 * file): one interner serves reads with the same variables, zone and outbound policy.
 */
export class RuleInterner {
  readonly #strings = new Map<string, string>();
  readonly #parts = new Map<string, object>();

  /**
   * `text` as a string of its own (see `VIEW_MIN_LENGTH`), the same string for equal
   * texts: a template or URL written in every rule is held once.
   */
  string(text: string): string {
    if (text.length < VIEW_MIN_LENGTH) return text;
    let own = this.#strings.get(text);
    if (own === undefined) {
      own = copyOf(text);
      this.#strings.set(own, own);
    }
    return own;
  }

  /** The part kept under `key`, if any (see `keep`). */
  known(key: string): object | undefined {
    return this.#parts.get(key);
  }

  /**
   * Keeps `part` under `key` for the rules read after, frozen with everything in it: it
   * is shared, so a change made through one rule would reach every rule holding it.
   */
  keep<T extends object>(key: string, part: T): T {
    this.#parts.set(key, deepFreeze(part));
    return part;
  }
}
