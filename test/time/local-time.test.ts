import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/errors.js";
import {
  airportZone,
  daysFromCivil,
  formatApiDateTime,
  fromLocalDateTime,
  localWindow,
  offsetMinutes,
  parseApiDateTime,
  toLocalDate,
  toLocalDateTime,
} from "../../src/time/local-time.js";

const AMS = "Europe/Amsterdam";
const utc = (iso: string): number => Date.parse(iso);

describe("toLocalDateTime", () => {
  it("uses +01:00 in winter and +02:00 in summer", () => {
    expect(toLocalDateTime(utc("2026-01-15T12:00:00Z"), AMS)).toBe("2026-01-15T13:00:00");
    expect(toLocalDateTime(utc("2026-07-15T12:00:00Z"), AMS)).toBe("2026-07-15T14:00:00");
  });

  it("jumps from 01:59:59 to 03:00:00 on 29 March 2026", () => {
    expect(toLocalDateTime(utc("2026-03-29T00:59:59Z"), AMS)).toBe("2026-03-29T01:59:59");
    expect(toLocalDateTime(utc("2026-03-29T01:00:00Z"), AMS)).toBe("2026-03-29T03:00:00");
  });

  it("shows 02:xx twice on 25 October 2026", () => {
    expect(toLocalDateTime(utc("2026-10-25T00:30:00Z"), AMS)).toBe("2026-10-25T02:30:00");
    expect(toLocalDateTime(utc("2026-10-25T01:30:00Z"), AMS)).toBe("2026-10-25T02:30:00");
    expect(toLocalDateTime(utc("2026-10-25T01:00:00Z"), AMS)).toBe("2026-10-25T02:00:00");
  });

  it("drops milliseconds rather than rounding them", () => {
    expect(toLocalDateTime(utc("2026-11-21T10:00:00.999Z"), AMS)).toBe("2026-11-21T11:00:00");
  });

  it("gives the local date, which differs from the UTC date around midnight", () => {
    expect(toLocalDate(utc("2026-11-21T23:30:00Z"), AMS)).toBe("2026-11-22");
  });
});

describe("fromLocalDateTime", () => {
  it("reads ordinary local times in either offset", () => {
    expect(fromLocalDateTime("2026-01-15T13:00:00", AMS)).toBe(utc("2026-01-15T12:00:00Z"));
    expect(fromLocalDateTime("2026-07-15T14:00", AMS)).toBe(utc("2026-07-15T12:00:00Z"));
  });

  it("maps a time in the spring gap to the moment the clock jumps", () => {
    expect(fromLocalDateTime("2026-03-29T02:30:00", AMS)).toBe(utc("2026-03-29T01:00:00Z"));
    expect(fromLocalDateTime("2026-03-29T02:00:00", AMS)).toBe(utc("2026-03-29T01:00:00Z"));
    expect(fromLocalDateTime("2026-03-29T03:00:00", AMS)).toBe(utc("2026-03-29T01:00:00Z"));
  });

  it("reads the repeated autumn hour as its first or its second pass", () => {
    expect(fromLocalDateTime("2026-10-25T02:30:00", AMS)).toBe(utc("2026-10-25T00:30:00Z"));
    expect(fromLocalDateTime("2026-10-25T02:30:00", AMS, "later")).toBe(
      utc("2026-10-25T01:30:00Z"),
    );
    // Outside the repeated hour both readings agree.
    expect(fromLocalDateTime("2026-10-25T03:00:00", AMS, "later")).toBe(
      utc("2026-10-25T02:00:00Z"),
    );
  });

  it("returns undefined for text that is not a local date-time", () => {
    expect(fromLocalDateTime("2026-10-25 02:30", AMS)).toBeUndefined();
    expect(fromLocalDateTime("2026-10-25T02:30:00+01:00", AMS)).toBeUndefined();
  });

  it("round-trips every instant of the DST days (property)", () => {
    const from = utc("2026-03-28T00:00:00Z");
    const to = utc("2026-10-27T00:00:00Z");
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: utc("2026-03-28T22:00:00Z"), max: utc("2026-03-29T04:00:00Z") }),
          fc.integer({ min: utc("2026-10-24T22:00:00Z"), max: utc("2026-10-25T04:00:00Z") }),
          fc.integer({ min: from, max: to }),
        ),
        (ms) => {
          const second = Math.floor(ms / 1000) * 1000;
          const local = toLocalDateTime(second, AMS);
          const back = [
            fromLocalDateTime(local, AMS, "earlier"),
            fromLocalDateTime(local, AMS, "later"),
          ];
          expect(back).toContain(second);
        },
      ),
    );
  });
});

describe("localWindow", () => {
  /** Every whole second in [from, to] shows a local time inside the window. */
  const covers = (fromMs: number, toMs: number): void => {
    const w = localWindow(fromMs, toMs, AMS);
    for (let t = Math.floor(fromMs / 1000) * 1000; t <= toMs; t += 1000) {
      const local = toLocalDateTime(t, AMS);
      expect(local >= w.from && local <= w.to, `${local} outside ${w.from}..${w.to}`).toBe(true);
    }
  };

  it("is the plain local bounds on an ordinary day", () => {
    expect(localWindow(utc("2026-11-21T10:00:00Z"), utc("2026-11-21T10:05:00Z"), AMS)).toEqual({
      from: "2026-11-21T11:00:00",
      to: "2026-11-21T11:05:00",
    });
  });

  it("rounds the upper bound up so a millisecond stamp inside the last second is covered", () => {
    const w = localWindow(utc("2026-11-21T10:00:00.250Z"), utc("2026-11-21T10:05:00.250Z"), AMS);
    expect(w).toEqual({ from: "2026-11-21T11:00:00", to: "2026-11-21T11:05:01" });
  });

  it("skips the missing hour in spring without losing time", () => {
    const from = utc("2026-03-29T00:50:00Z");
    const to = utc("2026-03-29T01:10:00Z");
    expect(localWindow(from, to, AMS)).toEqual({
      from: "2026-03-29T01:50:00",
      to: "2026-03-29T03:10:00",
    });
    covers(from, to);
  });

  it("covers both passes of the repeated hour in autumn", () => {
    // 02:50 summer time to 02:10 winter time: the local clock runs backwards inside.
    const from = utc("2026-10-25T00:50:00Z");
    const to = utc("2026-10-25T01:10:00Z");
    expect(localWindow(from, to, AMS)).toEqual({
      from: "2026-10-25T02:00:00",
      to: "2026-10-25T03:00:00",
    });
    covers(from, to);
  });

  it("covers any window on the DST days (property)", () => {
    const dayStart = [utc("2026-03-28T23:00:00Z"), utc("2026-10-24T22:00:00Z")];
    fc.assert(
      fc.property(
        fc.constantFrom(...dayStart),
        fc.integer({ min: 0, max: 6 * 3_600_000 }),
        fc.integer({ min: 0, max: 2 * 3_600_000 }),
        (start, offset, length) => {
          const from = start + offset;
          const w = localWindow(from, from + length, AMS);
          for (const t of [from, from + length / 2, from + length]) {
            const local = toLocalDateTime(t, AMS);
            expect(local >= w.from && local <= w.to).toBe(true);
          }
          expect(w.from <= w.to).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("rejects an inverted window", () => {
    expect(() => localWindow(2, 1, AMS)).toThrow(RangeError);
  });
});

describe("parseApiDateTime / formatApiDateTime", () => {
  it("parses +01:00, +0100 and Z offsets to the same instant", () => {
    const expected = utc("2026-11-21T09:15:30.123Z");
    expect(parseApiDateTime("2026-11-21T10:15:30.123+01:00", AMS)).toBe(expected);
    expect(parseApiDateTime("2026-11-21T10:15:30.123+0100", AMS)).toBe(expected);
    expect(parseApiDateTime("2026-11-21T09:15:30.123Z", AMS)).toBe(expected);
    expect(parseApiDateTime("2026-11-21T04:15:30.123-0500", AMS)).toBe(expected);
  });

  it("reads a timestamp without an offset as airport-local", () => {
    expect(parseApiDateTime("2026-07-01T12:00:00", AMS)).toBe(utc("2026-07-01T10:00:00Z"));
  });

  it("rejects impossible dates and times instead of rolling them over", () => {
    for (const bad of [
      "2026-13-45T10:00:00.000+01:00",
      "2026-02-30T10:00:00.000+01:00",
      "2026-02-29T10:00:00.000+01:00",
      "2026-04-31T10:00:00+01:00",
      "2026-11-21T24:00:00.000+01:00",
      "2026-11-21T10:60:00.000Z",
      "2026-11-21T10:00:61.000+0100",
      "2026-00-10T10:00:00.000+01:00",
    ]) {
      expect(parseApiDateTime(bad, AMS), bad).toBeUndefined();
    }
    expect(parseApiDateTime("2028-02-29T10:00:00.000+01:00", AMS)).toBe(
      utc("2028-02-29T09:00:00Z"),
    );
    expect(parseApiDateTime("2000-02-29T10:00:00Z", AMS)).toBe(utc("2000-02-29T10:00:00Z"));
    expect(parseApiDateTime("2100-02-29T10:00:00Z", AMS)).toBeUndefined();
    expect(fromLocalDateTime("2026-02-30T10:00:00", AMS)).toBeUndefined();
  });

  it("returns undefined for non-timestamps", () => {
    for (const bad of ["", "yesterday", "2026-11-21", "2026-11-21T10:15:30.123+1"]) {
      expect(parseApiDateTime(bad, AMS)).toBeUndefined();
    }
  });

  it("formats with the offset in force on each side of a change", () => {
    expect(formatApiDateTime(utc("2026-10-25T00:30:00.007Z"), AMS)).toBe(
      "2026-10-25T02:30:00.007+02:00",
    );
    expect(formatApiDateTime(utc("2026-10-25T01:30:00.007Z"), AMS)).toBe(
      "2026-10-25T02:30:00.007+01:00",
    );
  });

  it("round-trips format and parse (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: utc("2020-01-01T00:00:00Z"), max: utc("2035-01-01T00:00:00Z") }),
        (ms) => {
          expect(parseApiDateTime(formatApiDateTime(ms, AMS), AMS)).toBe(ms);
        },
      ),
    );
  });
});

describe("formatApiDateTime against luxon as an independent oracle", () => {
  // Whole-hour, half-hour and 45-minute offsets, and DST steps of 30 minutes.
  const ZONES = [
    "Europe/Amsterdam",
    "America/New_York",
    "America/St_Johns",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "UTC",
  ];
  const oracle = (ms: number, zone: string): string =>
    DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ");

  it("matches for any instant in 2000–2100 in any zone (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        (zone, ms) => {
          expect(formatApiDateTime(ms, zone)).toBe(oracle(ms, zone));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("matches millisecond by millisecond at the 2026 Amsterdam jumps", () => {
    for (const jump of [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1)]) {
      for (let ms = jump - 3; ms <= jump + 3; ms++) {
        expect(formatApiDateTime(ms, AMS)).toBe(oracle(ms, AMS));
      }
      for (let ms = jump - 2 * 3_600_000; ms <= jump + 2 * 3_600_000; ms += 61_001) {
        expect(formatApiDateTime(ms, AMS)).toBe(oracle(ms, AMS));
      }
    }
  });

  it("caches offsets without ever answering wrongly inside a transition bucket (property)", () => {
    const zone = "Australia/Lord_Howe";
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) }), (ms) => {
        expect(offsetMinutes(ms, zone)).toBe(DateTime.fromMillis(ms, { zone }).offset);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("the fast paths of parseApiDateTime and formatApiDateTime", () => {
  /**
   * The reading the digit-by-position fast path replaced, kept as the reference it
   * must agree with: a regex, range checks, then Date.UTC (which reads years 0–99 as
   * 1900–1999; years before 1970 still take that path).
   */
  const reference = (text: string): number | undefined => {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|[+-]\d{2}:?\d{2})$/.exec(
      text,
    );
    if (!m) return undefined;
    const [y, mo, d, h, mi, s, ms] = m.slice(1, 8).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] ?? 0;
    if (mo < 1 || mo > 12 || d < 1 || d > days || h > 23 || mi > 59 || s > 59) return undefined;
    const asUtc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
    const offset = m[8] as string;
    if (offset === "Z") return asUtc;
    const digits = offset.replace(":", "");
    const sign = digits[0] === "-" ? -1 : 1;
    return asUtc - sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
  };
  const two = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, "0"));
  const stamp = fc
    .record({
      year: fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, "0")),
      month: two(13),
      day: two(32),
      hour: two(24),
      minute: two(60),
      second: two(60),
      ms: fc.integer({ min: 0, max: 999 }).map((n) => String(n).padStart(3, "0")),
      offset: fc.oneof(
        fc.constant("Z"),
        fc
          .tuple(fc.constantFrom("+", "-"), two(99), two(99), fc.boolean())
          .map(([sign, h, m, colon]) => `${sign}${h}${colon ? ":" : ""}${m}`),
      ),
    })
    .map(
      (p) => `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}.${p.ms}${p.offset}`,
    );

  it("daysFromCivil counts days as Date.UTC does (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: utc("0000-01-01T00:00:00Z"), max: 8.64e15 }), (ms) => {
        const date = new Date(ms);
        expect(
          daysFromCivil(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()),
        ).toBe(Math.floor(ms / 86_400_000));
      }),
      { numRuns: 3000 },
    );
  });

  it("reads every timestamp of the canonical shape as the regex-and-Date.UTC reading did (property)", () => {
    fc.assert(
      fc.property(stamp, (text) => {
        expect(parseApiDateTime(text, AMS)).toBe(reference(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("rejects a canonical shape with a non-digit anywhere, as the reference does", () => {
    const good = "2026-11-21T10:15:30.123+01:00";
    for (let i = 0; i < good.length; i++) {
      for (const c of ["x", "/", ":", " "]) {
        const bad = good.slice(0, i) + c + good.slice(i + 1);
        expect(parseApiDateTime(bad, AMS), bad).toBe(reference(bad));
      }
    }
  });

  it("keeps the years before 1970 on the Date.UTC path, two-digit years included", () => {
    expect(parseApiDateTime("1969-12-31T23:59:59.999Z", AMS)).toBe(-1);
    expect(parseApiDateTime("1970-01-01T00:00:00.000Z", AMS)).toBe(0);
    expect(parseApiDateTime("0050-06-01T00:00:00.000Z", AMS)).toBe(Date.UTC(50, 5, 1));
  });

  it("formats the edges of the fast path as luxon does", () => {
    for (const ms of [
      0,
      1,
      999,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 22),
    ]) {
      expect(formatApiDateTime(ms, AMS)).toBe(
        DateTime.fromMillis(ms, { zone: AMS }).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ"),
      );
    }
    // Before 1970 the general path writes it.
    expect(formatApiDateTime(-1, "UTC")).toBe("1969-12-31T23:59:59.999+00:00");
  });

  it("formats a zone offset that is not whole minutes by the general path", () => {
    // Monrovia kept −00:44:30 until 1972; the fast path writes whole minutes only.
    const ms = Date.UTC(1971, 0, 1, 12);
    expect(offsetMinutes(ms, "Africa/Monrovia")).toBe(-44.5);
    expect(formatApiDateTime(ms, "Africa/Monrovia")).toBe("1971-01-01T11:15:30.000-00:44.5");
  });

  it("answers offsets right when zones and instants interleave (property)", () => {
    const zones = ["Europe/Amsterdam", "Australia/Lord_Howe", "America/St_Johns", "UTC"];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom(...zones),
            fc.integer({ min: Date.UTC(2026, 2, 28), max: Date.UTC(2026, 3, 6) }),
          ),
          { minLength: 1, maxLength: 20 },
        ),
        (queries) => {
          for (const [zone, ms] of queries) {
            expect(offsetMinutes(ms, zone)).toBe(DateTime.fromMillis(ms, { zone }).offset);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("airportZone", () => {
  it("rejects an unknown zone naming AIRPORT_TIMEZONE", () => {
    expect(() => airportZone("Mars/Olympus")).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: "AIRPORT_TIMEZONE" }),
    );
  });
});
