/**
 * What the rules of one load share, and strings of their own. A consumer app writes
 * 100,000 passenger rules alike but for a flight and an address: their change filters,
 * flight filters, retry schedules … are interned here, so that rules written alike hold
 * one object, frozen (a change made through one rule would reach them all).
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

/** Freezes a value read from JSON and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** Shares equal strings and parts among the rules of one load (one directory, or one file). */
export class RuleInterner {
  readonly #strings = new Map<string, string>();
  readonly #parts = new Map<string, unknown>();

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

  /**
   * A deep-frozen copy of `part`, the same one for parts with the same JSON. The part
   * must be plain data that JSON keeps as it is: objects and arrays of strings, finite
   * numbers and booleans, with no undefined values. The copy is sized exactly (JSON.parse
   * builds objects and arrays with room for what they hold, no more) and holds strings
   * of its own.
   */
  part<T extends object>(part: T): T {
    const key = JSON.stringify(part);
    let own = this.#parts.get(key);
    if (own === undefined) {
      own = deepFreeze(JSON.parse(key));
      this.#parts.set(key, own);
    }
    return own as T;
  }
}
