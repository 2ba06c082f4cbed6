import { describe, expect, it } from "vitest";
import { MatchContext } from "../../../src/rules/match/match-context.js";

const AMS = "Europe/Amsterdam";

describe("MatchContext.localDayStart", () => {
  it("is local midnight of the day of now, counted in days", () => {
    const context = new MatchContext(Date.parse("2026-11-21T10:00:00Z"), AMS);
    expect(context.localDayStart(0)).toBe(Date.parse("2026-11-20T23:00:00Z"));
    expect(context.localDayStart(1)).toBe(Date.parse("2026-11-21T23:00:00Z"));
    expect(context.localDayStart(-1)).toBe(Date.parse("2026-11-19T23:00:00Z"));
  });

  it("takes the local date, not the UTC date", () => {
    // 23:30Z on the 21st is 00:30 on the 22nd in Amsterdam.
    const context = new MatchContext(Date.parse("2026-11-21T23:30:00Z"), AMS);
    expect(context.localDayStart(0)).toBe(Date.parse("2026-11-21T23:00:00Z"));
  });

  it("rolls over months and years", () => {
    const context = new MatchContext(Date.parse("2026-12-31T12:00:00Z"), AMS);
    expect(context.localDayStart(1)).toBe(Date.parse("2026-12-31T23:00:00Z"));
    expect(context.localDayStart(32)).toBe(Date.parse("2027-01-31T23:00:00Z"));
  });

  it("is right on both DST days (23- and 25-hour days)", () => {
    const autumn = new MatchContext(Date.parse("2026-10-25T12:00:00Z"), AMS);
    expect(autumn.localDayStart(0)).toBe(Date.parse("2026-10-24T22:00:00Z"));
    expect(autumn.localDayStart(1) - autumn.localDayStart(0)).toBe(25 * 3_600_000);
    const spring = new MatchContext(Date.parse("2026-03-29T12:00:00Z"), AMS);
    expect(spring.localDayStart(0)).toBe(Date.parse("2026-03-28T23:00:00Z"));
    expect(spring.localDayStart(1) - spring.localDayStart(0)).toBe(23 * 3_600_000);
  });

  it("a day whose midnight is skipped starts when the clock jumps", () => {
    // America/Santiago moved its clocks from 00:00 to 01:00 on 2026-09-06.
    const context = new MatchContext(Date.parse("2026-09-06T15:00:00Z"), "America/Santiago");
    expect(context.localDayStart(0)).toBe(Date.parse("2026-09-06T04:00:00Z"));
  });
});
