import { describe, expect, it } from "vitest";
import { AirportDay, addDays, dayNumber } from "../../src/simulator/airport-day.js";
import { formatApiDateTime, offsetMinutes } from "../../src/time/local-time.js";

const ZONE = "Europe/Amsterdam";
const day = (date: string): AirportDay =>
  new AirportDay(date, ZONE, (ms: number) => offsetMinutes(ms, ZONE));
const at = (d: AirportDay, hh: number, mm: number, o?: "earlier" | "later"): string =>
  formatApiDateTime(d.instantOf(hh * 60 + mm, o), ZONE);

describe("AirportDay", () => {
  it("has 24 hours on a normal day", () => {
    const d = day("2026-06-10");
    expect(d.regular).toBe(true);
    expect(d.endMs - d.startMs).toBe(86_400_000);
    expect(at(d, 7, 5)).toBe("2026-06-10T07:05:00.000+02:00");
  });

  it("has 23 hours on the spring day; the missing hour maps to the jump", () => {
    const d = day("2026-03-29");
    expect(d.regular).toBe(false);
    expect(d.endMs - d.startMs).toBe(23 * 3_600_000);
    expect(at(d, 1, 55)).toBe("2026-03-29T01:55:00.000+01:00");
    expect(at(d, 2, 30)).toBe("2026-03-29T03:00:00.000+02:00");
    expect(at(d, 3, 5)).toBe("2026-03-29T03:05:00.000+02:00");
    expect(at(d, 23, 55)).toBe("2026-03-29T23:55:00.000+02:00");
  });

  it("has 25 hours on the autumn day; the repeated hour has two instants", () => {
    const d = day("2026-10-25");
    expect(d.endMs - d.startMs).toBe(25 * 3_600_000);
    expect(at(d, 2, 30, "earlier")).toBe("2026-10-25T02:30:00.000+02:00");
    expect(at(d, 2, 30, "later")).toBe("2026-10-25T02:30:00.000+01:00");
    expect(at(d, 12, 0)).toBe("2026-10-25T12:00:00.000+01:00");
  });

  it("does date arithmetic on local dates", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(dayNumber("1970-01-02")).toBe(1);
  });
});
