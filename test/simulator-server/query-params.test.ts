import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PAGE_MAX } from "../../src/api/contract.js";
import {
  isCalendarDate,
  pickAlias,
  readBoolean,
  readInt32,
  readLocalDateTime,
  readPage,
} from "../../src/simulator/http/query-params.js";

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

describe("query parameter readers", () => {
  it("readPage accepts exactly the integers 0..PAGE_MAX", () => {
    fc.assert(
      fc.property(fc.integer({ min: -2000, max: 2000 }), (n) => {
        const r = readPage(new URLSearchParams({ page: String(n) }));
        expect(r.ok).toBe(n >= 0 && n <= PAGE_MAX);
        if (r.ok) expect(r.value).toBe(n);
      }),
    );
  });

  it("readPage refuses non-integers and defaults to 0 when absent", () => {
    for (const text of ["", "1.5", "1e2", " 1", "+1", "0x10", "abc", "99999999999"]) {
      expect(readPage(new URLSearchParams({ page: text })).ok, text).toBe(false);
    }
    expect(readPage(new URLSearchParams())).toEqual({ ok: true, value: 0 });
  });

  it("readInt32 round-trips every int32 and refuses anything outside", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        expect(readInt32("x", String(n))).toEqual({ ok: true, value: n });
      }),
    );
    expect(readInt32("x", String(2 ** 31)).ok).toBe(false);
    expect(readInt32("x", String(-(2 ** 31) - 1)).ok).toBe(false);
  });

  it("isCalendarDate agrees with the calendar for any y-m-d", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2100 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (y, m, d) => {
          const text = `${y}-${pad(m)}-${pad(d)}`;
          const real = new Date(Date.UTC(y, m - 1, d));
          const expected = m >= 1 && m <= 12 && d >= 1 && real.getUTCDate() === d;
          expect(isCalendarDate(text)).toBe(expected);
        },
      ),
    );
  });

  it("readLocalDateTime accepts exactly valid yyyy-MM-dd'T'HH:mm:ss", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        (h, m, s) => {
          const text = `2026-03-29T${pad(h)}:${pad(m)}:${pad(s)}`;
          expect(readLocalDateTime("fromDateTime", text).ok).toBe(h <= 23 && m <= 59 && s <= 59);
        },
      ),
    );
    for (const bad of [
      "2026-03-29T10:00",
      "2026-03-29 10:00:00",
      "2026-03-29T10:00:00Z",
      "2026-03-29T10:00:00.000",
    ]) {
      expect(readLocalDateTime("fromDateTime", bad).ok, bad).toBe(false);
    }
  });

  it("readBoolean takes only true and false", () => {
    expect(readBoolean("b", "true")).toEqual({ ok: true, value: true });
    expect(readBoolean("b", "false")).toEqual({ ok: true, value: false });
    for (const bad of ["", "1", "yes", "TRUE "]) expect(readBoolean("b", bad).ok).toBe(false);
  });

  it("pickAlias: camel case wins unless lowerWins", () => {
    const both = new URLSearchParams({ flightName: "A", flightname: "B" });
    expect(pickAlias(both, "flightName", "flightname")).toEqual({ param: "flightName", text: "A" });
    expect(pickAlias(both, "flightName", "flightname", true)).toEqual({
      param: "flightname",
      text: "B",
    });
    const lowerOnly = new URLSearchParams({ flightname: "B" });
    expect(pickAlias(lowerOnly, "flightName", "flightname")).toEqual({
      param: "flightname",
      text: "B",
    });
    expect(pickAlias(new URLSearchParams(), "flightName", "flightname")).toBeUndefined();
  });
});
