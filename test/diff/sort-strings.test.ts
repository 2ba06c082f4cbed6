import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sortFirst, sortStrings } from "../../src/diff/sort-strings.js";

describe("sortStrings", () => {
  it("orders long lists too (more than 32 strings), as Array.prototype.sort() does", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string(), { minLength: 33, maxLength: 80 }),
        fc.nat(80),
        (values, k) => {
          const copy = values.slice();
          expect(sortStrings(copy)).toBe(copy);
          expect(copy).toEqual(values.slice().sort());
          const n = 33 + (k % (values.length - 32));
          const first = values.slice();
          sortFirst(first, n);
          expect(first).toEqual([...values.slice(0, n).sort(), ...values.slice(n)]);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("orders strings as Array.prototype.sort() does, in place, at any length (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom("KL1", "KL10", "kl1", "", "É", "e"), fc.string()), {
          maxLength: 80,
        }),
        (values) => {
          const copy = values.slice();
          expect(sortStrings(copy)).toBe(copy);
          expect(copy).toEqual(values.slice().sort());
        },
      ),
    );
  });

  it("sorts by UTF-16 code units, not by locale", () => {
    expect(sortStrings(["b", "a", "B", "\u{1F600}", "\uFFFF", "é"])).toEqual([
      "B",
      "a",
      "b",
      "é",
      "\u{1F600}",
      "\uFFFF",
    ]);
  });

  it("sortFirst sorts only the first n entries, as sortStrings sorts them (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom("KL1", "KL10", "kl1", "", "É", "e"), fc.string()), {
          maxLength: 80,
        }),
        fc.nat(80),
        (values, k) => {
          const n = Math.min(k, values.length);
          const copy = values.slice();
          sortFirst(copy, n);
          expect(copy.slice(0, n)).toEqual(sortStrings(values.slice(0, n)));
          expect(copy.slice(n)).toEqual(values.slice(n));
        },
      ),
    );
  });
});
