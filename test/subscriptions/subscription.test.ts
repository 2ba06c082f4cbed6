import { describe, expect, it } from "vitest";
import { RuleSet } from "../../src/rules/match/rule-matcher.js";
import {
  checkSubscription,
  expiresAt,
  type Subscription,
  type SubscriptionInput,
  subscriptionIdOf,
  subscriptionRule,
} from "../../src/subscriptions/subscription.js";
import { changeEvent, SCHEDULED } from "../rules/event-builder.js";

const ZONE = "Europe/Amsterdam";
const NOW = Date.parse("2026-11-20T12:00:00Z");

function made(input: SubscriptionInput): Subscription {
  const checked = checkSubscription(input, { zone: ZONE }, "s1", NOW);
  if ("problems" in checked) throw new Error(JSON.stringify(checked.problems));
  return checked.subscription;
}

function problems(input: SubscriptionInput) {
  const checked = checkSubscription(input, { zone: ZONE }, "s1", NOW);
  return "problems" in checked ? checked.problems : [];
}

/** Whether the subscription's rule takes these events (one observation). */
function takes(s: Subscription, ...events: ReturnType<typeof changeEvent>[]): boolean {
  const set = new RuleSet([subscriptionRule(s, { zone: ZONE })], { zone: ZONE });
  return set.match(events, SCHEDULED - 3_600_000).length > 0;
}

describe("a subscription", () => {
  it("is made from a flight number in any spelling, a date and one channel, essentials by default", () => {
    expect(
      made({
        flight: "dl 09341",
        date: "2026-11-21",
        email: "anna@example.com",
        labels: { booking: "X7Q2LM" },
      }),
    ).toEqual({
      id: "s1",
      flight: "DL9341",
      date: "2026-11-21",
      preset: "essentials",
      channel: { type: "email", to: "anna@example.com" },
      labels: { booking: "X7Q2LM" },
      status: "active",
      createdAt: NOW,
    });
  });

  it("names every field that is wrong, and what is right", () => {
    expect(problems({ flight: "flight", date: "21-11-2026" }).map((p) => p.field)).toEqual([
      "flight",
      "date",
      "email",
    ]);
    expect(problems({ date: "2026-11-21", email: "a@b.example" })[0]?.message).toContain(
      "is required",
    );
    expect(
      problems({
        flight: "KL1",
        date: "2026-11-21",
        email: "a@b.example",
        webhook: "https://x.example/h",
      })[0],
    ).toMatchObject({ field: "email", message: expect.stringContaining("one channel") });
    expect(
      problems({ flight: "KL1", date: "2026-11-21", email: "a@b.example", preset: "all" })[0],
    ).toMatchObject({
      field: "preset",
      message: expect.stringContaining("essentials"),
    });
    expect(
      problems({ flight: "KL1", date: "2026-11-21", email: "a@b.example", changes: ["gat"] })[0],
    ).toMatchObject({ field: "changes", message: expect.stringContaining("did you mean `gate`") });
    expect(problems({ flight: "KL1", date: "2026-11-21", email: "nobody" })[0]?.field).toBe(
      "email",
    );
    expect(
      problems({ flight: "KL1", date: "2026-11-21", webhook: "http://127.0.0.1:9/h" })[0],
    ).toMatchObject({ field: "webhook", message: expect.stringContaining("loopback") });
    expect(
      problems({
        flight: "KL1",
        date: "2026-11-21",
        email: "a@b.example",
        labels: { "bad key": "x" },
      })[0]?.field,
    ).toBe("labels.bad key");
  });

  it("is the rule `sub:<id>`, taking its flight by any of its numbers on its date only", () => {
    const s = made({ flight: "DL9341", date: "2026-11-21", email: "anna@example.com" });
    const rule = subscriptionRule(s, { zone: ZONE });
    expect(rule.id).toBe("sub:s1");
    expect(subscriptionIdOf(rule.id)).toBe("s1");
    expect(subscriptionIdOf("ops-gates")).toBeUndefined();
    expect(rule.channels).toMatchObject([{ type: "email", to: ["anna@example.com"] }]);
    expect(takes(s, changeEvent())).toBe(true);
    // The same numbers a day later: another flight.
    const nextDay = {
      key: "D:2026-11-22:KL601",
      scheduleDate: "2026-11-22",
      scheduled: SCHEDULED + 86_400_000,
    };
    expect(takes(s, changeEvent({ flight: nextDay }))).toBe(false);
    expect(takes(s, changeEvent({ flight: { flightNames: ["KL0602"] } }))).toBe(false);
  });

  it("with a direction, takes only that one of its number's flights on its date", () => {
    const base = { flight: "DL9341", date: "2026-11-21", email: "anna@example.com" };
    const arrival = { key: "A:2026-11-21:KL602", direction: "A" as const };
    const out = made({ ...base, direction: "departure" });
    expect(out.direction).toBe("departure");
    expect(takes(out, changeEvent())).toBe(true);
    expect(takes(out, changeEvent({ flight: arrival }))).toBe(false);
    const inbound = made({ ...base, direction: " A " });
    expect(inbound.direction).toBe("arrival");
    expect(takes(inbound, changeEvent())).toBe(false);
    expect(takes(inbound, changeEvent({ flight: arrival }))).toBe(true);
    // Without one: both.
    const both = made(base);
    expect(both.direction).toBeUndefined();
    expect(takes(both, changeEvent()) && takes(both, changeEvent({ flight: arrival }))).toBe(true);
    expect(problems({ ...base, direction: "outbound" })).toEqual([
      {
        field: "direction",
        message: '"outbound" is not a direction: departure or arrival (or leave it out for both)',
      },
    ]);
    expect(problems({ ...base, direction: 1 }).map((p) => p.field)).toEqual(["direction"]);
  });

  it("may have quiet hours: its rule holds what is not critical to their end", () => {
    const base = { flight: "KL601", date: "2026-11-21", email: "anna@example.com" };
    const s = made({ ...base, quietHours: " 23:00 - 07:00 " });
    expect(s.quietHours).toBe("23:00-07:00");
    expect(subscriptionRule(s, { zone: ZONE }).quietHours).toMatchObject({
      fromMinute: 23 * 60,
      toMinute: 7 * 60,
      zone: ZONE,
      critical: [{ name: "cancelled" }, { name: "diverted" }, { name: "gate" }],
    });
    // One-digit hours are written with two, as the rule reader wants them.
    expect(made({ ...base, quietHours: "7:00-9:30" }).quietHours).toBe("07:00-09:30");
    const london = made({ ...base, quietHours: "22:30-06:15 Europe/London" });
    expect(subscriptionRule(london, { zone: ZONE }).quietHours).toMatchObject({
      fromMinute: 22 * 60 + 30,
      zone: "Europe/London",
    });
    expect(problems({ ...base, quietHours: "night" })).toEqual([
      {
        field: "quietHours",
        message:
          '"night" is not quiet hours: write from-to, such as 23:00-07:00 (or 23:00-07:00 Europe/London for a zone of their own)',
      },
    ]);
    // The times and the zone are checked as a rule file's are, and named as this field.
    expect(problems({ ...base, quietHours: "25:00-07:00" }).map((p) => p.field)).toEqual([
      "quietHours",
    ]);
    expect(problems({ ...base, quietHours: "23:00-07:00 Mars/Base" })).toEqual([
      expect.objectContaining({
        field: "quietHours",
        message: expect.stringContaining("Mars/Base"),
      }),
    ]);
  });

  it("may have reminders, as words or mappings, written back in one form; none hears only them", () => {
    const base = { flight: "KL601", date: "2026-11-21", email: "anna@example.com" };
    const s = made({
      ...base,
      remind: ["30m before boarding", { before: "departure", by: "3h" }],
    });
    expect(s.remind).toEqual(["30m before boarding", "3h before departure"]);
    const rule = subscriptionRule(s, { zone: ZONE });
    expect(rule.reminders).toEqual([
      { before: "boarding", byMs: 30 * 60_000 },
      { before: "departure", byMs: 3 * 3_600_000 },
    ]);
    // A text listing them with commas (a CSV cell, a form field).
    expect(
      made({ ...base, remind: "90m before departure, 1h before gate closing" }).remind,
    ).toEqual(["1h30m before departure", "1h before gate_closing"]);
    // Reminders only: no change is heard.
    const only = made({ ...base, preset: "none", remind: ["30m before boarding"] });
    expect(subscriptionRule(only, { zone: ZONE }).changes).toEqual([]);
    expect(takes(only, changeEvent({ flight: { scheduleDate: "2026-11-21" } }))).toBe(false);
    expect(problems({ ...base, preset: "none" })).toEqual([
      { field: "preset", message: "none hears of no change: give reminders (remind) with it" },
    ]);
    expect(problems({ ...base, remind: [7] }).map((p) => p.field)).toEqual(["remind"]);
    expect(problems({ ...base, remind: ["soon before boarding"] })).toEqual([
      expect.objectContaining({ field: "remind" }),
    ]);
    expect(problems({ ...base, remind: ["30m before takeoff"] })).toEqual([
      expect.objectContaining({ field: "remind", message: expect.stringContaining("takeoff") }),
    ]);
  });

  it("with the essentials, hears a gate, boarding, a 15-minute delay, a cancellation — not a 10-minute delay or a terminal", () => {
    const s = made({ flight: "KL601", date: "2026-11-21", email: "anna@example.com" });
    const late = (minutes: number) =>
      changeEvent({
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        action: "changed",
        old: "2026-11-21T11:00:00.000+01:00",
        new: "2026-11-21T11:20:00.000+01:00",
        shiftMinutes: minutes,
        delayMinutes: minutes,
      });
    expect(takes(s, changeEvent())).toBe(true);
    expect(takes(s, late(20))).toBe(true);
    expect(takes(s, late(10))).toBe(false);
    expect(
      takes(
        s,
        changeEvent({ kind: "state", field: "publicFlightState", action: "added", state: "BRD" }),
      ),
    ).toBe(true);
    expect(
      takes(
        s,
        changeEvent({ kind: "state", field: "publicFlightState", action: "added", state: "CNX" }),
      ),
    ).toBe(true);
    expect(
      takes(
        s,
        changeEvent({ kind: "state", field: "publicFlightState", action: "added", state: "GCL" }),
      ),
    ).toBe(false);
    expect(takes(s, changeEvent({ kind: "terminal", field: "terminal", old: 1, new: 2 }))).toBe(
      false,
    );
  });

  it("may be in Dutch: its rule writes its notifications in Dutch; an unknown language is refused", () => {
    const s = made({ flight: "KL601", date: "2026-11-21", email: "a@b.example", language: "nl" });
    expect(s.language).toBe("nl");
    expect(subscriptionRule(s, { zone: ZONE }).language).toBe("nl");
    expect(
      subscriptionRule(made({ flight: "KL601", date: "2026-11-21", email: "a@b.example" }), {
        zone: ZONE,
      }).language,
    ).toBeUndefined();
    expect(
      problems({ flight: "KL601", date: "2026-11-21", email: "a@b.example", language: "fr" })[0],
    ).toMatchObject({
      field: "language",
      message: expect.stringContaining("en, nl"),
    });
  });

  it("with its own changes, hears those only", () => {
    const s = made({
      flight: "KL601",
      date: "2026-11-21",
      email: "a@b.example",
      changes: ["terminal"],
    });
    expect(takes(s, changeEvent({ kind: "terminal", field: "terminal", old: 1, new: 2 }))).toBe(
      true,
    );
    expect(takes(s, changeEvent())).toBe(false);
  });

  it("expires a while after the end of its flight's local date", () => {
    // 2026-11-22T00:00 in Amsterdam is 23:00 UTC the day before.
    expect(expiresAt({ date: "2026-11-21" }, ZONE, 3_600_000)).toBe(
      Date.parse("2026-11-21T23:00:00Z") + 3_600_000,
    );
  });
});
