/** Schedule bounds in the airport's zone (across both DST changes) and rule durations. */
import { describe, expect, it } from "vitest";
import {
  isEmptyWindow,
  readRuleDuration,
  readScheduleBound,
} from "../../../src/rules/read/rule-time.js";
import { oneRule, problemOf, ruleWith, ZONE } from "./rule-text.js";

const at = (iso: string) => ({ at: Date.parse(iso) });
const bound = (text: string, edge: "from" | "to" = "from") => {
  const read = readScheduleBound(text, edge, ZONE);
  if (!read.ok) throw new Error(read.message);
  return read.value;
};

describe("schedule bounds", () => {
  it("a date is its local start as from, the start of the next day as to", () => {
    expect(bound("2026-11-21", "from")).toEqual(at("2026-11-20T23:00:00Z"));
    expect(bound("2026-11-21", "to")).toEqual(at("2026-11-21T23:00:00Z"));
    expect(bound("2026-12-31", "to")).toEqual(at("2026-12-31T23:00:00Z"));
    expect(bound("2028-02-28", "to")).toEqual(at("2028-02-28T23:00:00Z"));
  });

  it("the autumn change day (Europe/Amsterdam 2026-10-25) is 25 hours long", () => {
    const from = bound("2026-10-25", "from");
    const to = bound("2026-10-25", "to");
    expect(from).toEqual(at("2026-10-24T22:00:00Z")); // midnight CEST
    expect(to).toEqual(at("2026-10-25T23:00:00Z")); // next midnight, CET
    if ("at" in from && "at" in to) expect(to.at - from.at).toBe(25 * 3_600_000);
  });

  it("the spring change day (2026-03-29) is 23 hours long", () => {
    const from = bound("2026-03-29", "from");
    const to = bound("2026-03-29", "to");
    if ("at" in from && "at" in to) expect(to.at - from.at).toBe(23 * 3_600_000);
  });

  it("a local date-time in the repeated autumn hour is its first occurrence", () => {
    expect(bound("2026-10-25T02:30")).toEqual(at("2026-10-25T00:30:00Z"));
    expect(bound("2026-10-25T03:30")).toEqual(at("2026-10-25T02:30:00Z"));
    expect(bound("2026-10-25T01:30:15")).toEqual(at("2026-10-24T23:30:15Z"));
  });

  it("a local date-time the spring change skips is when the clock jumps", () => {
    expect(bound("2026-03-29T02:30")).toEqual(at("2026-03-29T01:00:00Z"));
  });

  it("a date-time is the same as from and as to", () => {
    expect(bound("2026-11-21T06:30", "to")).toEqual(at("2026-11-21T05:30:00Z"));
  });

  it.each([
    ["now", { fromNowMs: 0 }],
    ["+3h", { fromNowMs: 10_800_000 }],
    ["-30m", { fromNowMs: -1_800_000 }],
    ["+2d", { fromNowMs: 172_800_000 }],
    ["+1h30m", { fromNowMs: 5_400_000 }],
    ["NOW", { fromNowMs: 0 }],
  ])("%s is relative to the moment of matching", (text, value) => {
    expect(bound(text)).toEqual(value);
    expect(bound(text, "to")).toEqual(value);
  });

  it("today and tomorrow are local days of the moment of matching", () => {
    expect(bound("today", "from")).toEqual({ localDayOffset: 0, endOfDay: false });
    expect(bound("today", "to")).toEqual({ localDayOffset: 0, endOfDay: true });
    expect(bound("tomorrow", "from")).toEqual({ localDayOffset: 1, endOfDay: false });
    expect(bound("tomorrow", "to")).toEqual({ localDayOffset: 1, endOfDay: true });
  });

  it.each([
    ["2026-02-30", "`2026-02-30` is not a date"],
    ["2026-13-01", "`2026-13-01` is not a date"],
    ["2026-11-21T25:00", "`2026-11-21T25:00` is not a date and time"],
    ["+3x", "`+3x` is not a time from now"],
    ["+", "`+` is not a time"],
    ["yesterday", "`yesterday` is not a time"],
    ["21-11-2026", "`21-11-2026` is not a time"],
    ["2026-11-21 06:30", "`2026-11-21 06:30` is not a time"],
  ])("refuses %s", (text, message) => {
    const read = readScheduleBound(text, "from", ZONE);
    expect(read).toMatchObject({ ok: false, message });
  });

  it("asks for a sign on a bare duration", () => {
    expect(readScheduleBound("3h", "to", ZONE)).toMatchObject({
      ok: false,
      hint: "a time from now needs a sign: +3h or -3h",
    });
  });
});

describe("isEmptyWindow", () => {
  it("compares bounds of the same form only", () => {
    expect(isEmptyWindow({ at: 2 }, { at: 1 })).toBe(true);
    expect(isEmptyWindow({ at: 1 }, { at: 1 })).toBe(true);
    expect(isEmptyWindow({ at: 1 }, { at: 2 })).toBe(false);
    expect(isEmptyWindow({ fromNowMs: 0 }, { fromNowMs: -1 })).toBe(true);
    expect(isEmptyWindow({ fromNowMs: 0 }, { fromNowMs: 1 })).toBe(false);
    expect(
      isEmptyWindow({ localDayOffset: 1, endOfDay: false }, { localDayOffset: 0, endOfDay: true }),
    ).toBe(true);
    expect(
      isEmptyWindow({ localDayOffset: 0, endOfDay: false }, { localDayOffset: 0, endOfDay: true }),
    ).toBe(false);
    expect(isEmptyWindow({ at: 0 }, { fromNowMs: -1 })).toBe(false);
  });
});

describe("schedule in a rule", () => {
  it("is read in the loader's zone", () => {
    expect(
      oneRule(ruleWith("flights: { schedule: { from: 2026-10-25, to: 2026-10-25 } }")).flights
        .schedule,
    ).toEqual({
      from: at("2026-10-24T22:00:00Z"),
      to: at("2026-10-25T23:00:00Z"),
    });
    expect(
      oneRule(ruleWith("flights: { schedule: { from: today, to: +2d } }")).flights.schedule,
    ).toEqual({
      from: { localDayOffset: 0, endOfDay: false },
      to: { fromNowMs: 172_800_000 },
    });
    expect(oneRule(ruleWith("flights: { schedule: { to: +3h } }")).flights.schedule).toEqual({
      to: { fromNowMs: 10_800_000 },
    });
  });

  it("refuses from after to, at `to`", () => {
    expect(
      problemOf(ruleWith("flights: { schedule: { from: 2026-11-22, to: 2026-11-21 } }")),
    ).toMatchObject({
      path: "rules[0].flights.schedule.to",
      column: 50,
      message: "`from` must be before `to`",
    });
    expect(problemOf(ruleWith("flights: { schedule: { from: +3h, to: now } }"))).toMatchObject({
      message: "`from` must be before `to`",
    });
    expect(
      problemOf(ruleWith("flights: { schedule: { from: tomorrow, to: today } }")),
    ).toMatchObject({ message: "`from` must be before `to`" });
  });

  it("refuses a bad bound, an unknown key and an empty schedule", () => {
    expect(problemOf(ruleWith("flights: { schedule: { from: soon } }"))).toMatchObject({
      path: "rules[0].flights.schedule.from",
      column: 34,
      message: "`soon` is not a time",
    });
    expect(problemOf(ruleWith("flights: { schedule: { form: now } }"))).toMatchObject({
      hint: "did you mean `from`?",
    });
    expect(problemOf(ruleWith("flights: { schedule: {} }"))).toMatchObject({
      message: "`schedule` has neither `from` nor `to`",
    });
    expect(problemOf(ruleWith("flights: { schedule: { from: 5 } }"))).toMatchObject({
      message: "`5` is not a time",
    });
  });
});

describe("readRuleDuration", () => {
  it("reads units and combinations", () => {
    expect(readRuleDuration("1h30m")).toEqual({ ok: true, value: 5_400_000 });
    expect(readRuleDuration("500ms")).toEqual({ ok: true, value: 500 });
  });

  it("refuses a bare number with a hint naming both readings", () => {
    expect(readRuleDuration("90")).toEqual({
      ok: false,
      message: "`90` has no unit",
      hint: "durations need a unit: say 90s or 90m (units ms, s, m, h, d)",
    });
  });
});
