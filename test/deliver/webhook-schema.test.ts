/**
 * schemas/webhook.schema.json against the code that renders webhook bodies: every
 * body `webhookMessage` can render — from changes the real differ reports between
 * random flight states — matches it with every object closed (so every field sent is
 * documented), and it refuses what the contract rules out: a type that is not the
 * alert's most significant change, values of the wrong shape, a bad `sequence`.
 * test/acceptance checks the bodies the real daemon delivers against it too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, REMINDER_EVENT_TYPE, TEST_EVENT_TYPE } from "../../src/deliver/event-type.js";
import { webhookMessage } from "../../src/deliver/webhook-message.js";
import { type Change, type ChangeEvent, toChangeEvent } from "../../src/diff/change.js";
import { diffFields } from "../../src/diff/flight-diff.js";
import type { SnapshotFields, TimeField } from "../../src/diff/flight-snapshot.js";
import { TIME_FIELDS } from "../../src/diff/flight-snapshot.js";
import type { Rule } from "../../src/rules/rule.js";
import {
  flight,
  MINUTE,
  rule as plainRule,
  SCHEDULED,
  ZONE,
} from "../dispatch/dispatch-builder.js";
import { webhookSchema, webhookSchemaErrors } from "../support/webhook-schema.js";
import { alertOf, notificationOf, webhookChannel } from "./webhook-fixtures.js";

const HOOK = "https://hooks.example.com/flights";
const CE = webhookChannel(HOOK);
const JSON_HOOK = webhookChannel(HOOK, { format: "json", name: "json" });

/** Both bodies of one alert: CloudEvents and plain JSON. */
function bodies(
  changes: Change[],
  current?: SnapshotFields,
  rule?: Rule,
): Record<string, unknown>[] {
  const events: ChangeEvent[] = changes.map((c, i) => toChangeEvent(c, flight(), 1 + i, current));
  const r = rule ?? plainRule({ description: "All changes", channels: [CE, JSON_HOOK] });
  // As the dispatcher decides them: with a sequence (the newest observation's version).
  const alert = { ...alertOf(events, {}, current), sequence: events.length };
  return [CE, JSON_HOOK].map((channel) => {
    const notification = notificationOf(alert, { ...r, channels: [channel] });
    return JSON.parse(webhookMessage(notification, channel, { rule: r, zone: ZONE }).body);
  });
}

const minutes = (n: number): number => SCHEDULED + n * MINUTE;

/** Random known fields of a flight, each possibly unknown. */
const fieldsArb: fc.Arbitrary<SnapshotFields> = fc.record(
  {
    gate: fc.constantFrom("D7", "D9", "E2"),
    pier: fc.constantFrom("D", "E"),
    terminal: fc.integer({ min: 1, max: 3 }),
    states: fc
      .subarray(["SCH", "DEL", "GTO", "BRD", "CNX", "DIV", "AIR", "EXP", "TOM"], { minLength: 1 })
      .map((s) => [...s].sort()),
    times: fc
      .dictionary(fc.constantFrom(...TIME_FIELDS), fc.integer({ min: -30, max: 300 }).map(minutes))
      .map((t) => t as Partial<Record<TimeField, number>>),
    belts: fc.subarray(["11", "12", "14"], { minLength: 1 }),
    checkin: fc.record(
      {
        opens: fc.integer({ min: -240, max: -120 }).map(minutes),
        closes: fc.integer({ min: -60, max: -40 }).map(minutes),
        rows: fc.subarray(["10", "11", "12"]),
        desks: fc.uniqueArray(fc.integer({ min: 1, max: 40 })).map((d) => d.sort((a, b) => a - b)),
      },
      { requiredKeys: ["rows", "desks"] },
    ),
    codeshares: fc.subarray(["AF5101", "DL5101"], { minLength: 1 }),
    aircraftType: fc.constantFrom("789/789", "73H/73H", "/789", "73H/"),
    registration: fc.constantFrom("PHBXA", "PHBXB"),
    route: fc.subarray(["WAW", "KRK", "LHR"], { minLength: 1 }),
    serviceType: fc.constantFrom("J", "C", "F"),
  },
  { requiredKeys: [] },
);

const FLIGHT_CHANGES: Change[] = [
  { kind: "flight", field: "flight", action: "added" },
  { kind: "flight", field: "flight", action: "removed" },
];

describe("schemas/webhook.schema.json", () => {
  it("names every event type the daemon sends, in the order of their precedence, then the test's", () => {
    const defs = webhookSchema().$defs as { eventType: { enum: string[] } };
    expect(defs.eventType.enum).toEqual([...EVENT_TYPES, REMINDER_EVENT_TYPE, TEST_EVENT_TYPE]);
  });

  it("matches, closed, every body rendered from changes the differ reports, in both formats", () => {
    fc.assert(
      fc.property(
        fieldsArb,
        fieldsArb,
        fc.option(fc.constantFrom(...FLIGHT_CHANGES), { nil: undefined }),
        fc.boolean(),
        (before, after, flightChange, correction) => {
          const changes = diffFields(before, after, SCHEDULED, ZONE);
          if (flightChange) changes.push(flightChange);
          if (changes.length === 0) return;
          const current = { ...before, ...after };
          const body = bodies(changes, current);
          if (correction) {
            for (const b of body) {
              const data = (b.data ?? b) as { changes: { correction?: boolean }[] };
              (data.changes[0] as { correction?: boolean }).correction = true;
            }
          }
          for (const b of body) expect(webhookSchemaErrors(b)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
    // Compiling the schema (twice) comes first: generous for a busy machine.
  }, 60_000);

  it("matches, closed, a replay and a test in both formats, and names what they are", () => {
    const events = [
      toChangeEvent(
        { kind: "gate", field: "gate", action: "changed", old: "D5", new: "D7" },
        flight(),
        1,
      ),
    ];
    const rule = plainRule({ description: "All changes", channels: [CE, JSON_HOOK] });
    const alert = { ...alertOf(events), sequence: 1 };
    for (const channel of [CE, JSON_HOOK]) {
      const original = notificationOf(alert, { ...rule, channels: [channel] });
      const replay = { ...original, id: "msg_aaaaaaaaaaaaaaaaaaaaaaaaaa", replayOf: original.id };
      const body = JSON.parse(webhookMessage(replay, channel, { rule, zone: ZONE }).body);
      expect(webhookSchemaErrors(body)).toEqual([]);
      expect((body.data ?? body).replayOf).toBe(original.id);
      const sample = notificationOf({ ...alert, test: true }, { ...rule, channels: [channel] });
      const test = JSON.parse(webhookMessage(sample, channel, { rule, zone: ZONE }).body);
      expect(webhookSchemaErrors(test)).toEqual([]);
      expect(test.type).toBe("flightwatch.test");
      expect((test.data ?? test).test).toBe(true);
    }
  });

  it("matches, closed, a reminder in both formats: its own type, no changes, what it reminds of", () => {
    const rule = plainRule({ description: "Trip", channels: [CE, JSON_HOOK] });
    const at = minutes(-40);
    const gate = toChangeEvent(
      { kind: "gate", field: "gate", action: "assigned", new: "D7" },
      flight(),
      1,
    );
    const alert = {
      ...alertOf([gate], {}, { gate: "D7" }),
      changes: [],
      reminder: {
        name: "boarding-30m",
        before: "boarding" as const,
        byMinutes: 30,
        at,
        inMinutes: 30,
      },
    };
    for (const channel of [CE, JSON_HOOK]) {
      const n = notificationOf(alert, { ...rule, channels: [channel] });
      const body = JSON.parse(webhookMessage(n, channel, { rule, zone: ZONE }).body);
      expect(webhookSchemaErrors(body)).toEqual([]);
      expect(body.type).toBe("flight.reminder");
      // About a moment, not a state of the flight: no sequence (and none required).
      expect(body.sequence).toBeUndefined();
      const data = body.data ?? body;
      expect(data.changes).toEqual([]);
      expect(data.reminder).toEqual({
        name: "boarding-30m",
        before: "boarding",
        byMinutes: 30,
        at: "2026-11-21T10:20:00.000+01:00",
        inMinutes: 30,
      });
      expect(data.summary).toBe("Boarding for KL1234 starts in 30 min at gate D7 (10:20)");
      // A reminder's `before` is one of the four moments.
      data.reminder.before = "takeoff";
      expect(webhookSchemaErrors(body)).not.toEqual([]);
    }
  });

  it("documents current.aircraftType and current.checkin as flightwatch writes them", () => {
    const ce = bodies([{ kind: "gate", field: "gate", action: "assigned", new: "D7" }], {
      gate: "D7",
      aircraftType: "/789",
      checkin: { opens: minutes(-180), rows: ["12"], desks: [3, 4] },
    })[0] as { data: { current: unknown } };
    expect(ce.data.current).toEqual({
      gate: "D7",
      aircraftType: "/789",
      checkin: { opens: "2026-11-21T08:00:00.000+01:00", rows: ["12"], desks: [3, 4] },
    });
    expect(webhookSchemaErrors(ce)).toEqual([]);
    const broken = structuredClone(ce) as { data: { current: Record<string, unknown> } };
    broken.data.current.aircraftType = "/";
    broken.data.current.checkin = { opens: "08:00", rows: [12], desks: ["3"] };
    const errors = webhookSchemaErrors(broken, "open").join("\n");
    expect(errors).toContain("/data/current/aircraftType");
    expect(errors).toContain("/data/current/checkin/opens");
    expect(errors).toContain("/data/current/checkin/rows/0");
    expect(errors).toContain("/data/current/checkin/desks/0");
  });

  it("refuses a type that is not the alert's most significant change", () => {
    const cancellation = diffFields(
      { gate: "D7", states: ["BRD"] },
      { gate: "D9", states: ["CNX"] },
      SCHEDULED,
      ZONE,
    );
    const uncancel = diffFields({ states: ["CNX"] }, { states: ["SCH"] }, SCHEDULED, ZONE);
    for (const [changes, right, wrong] of [
      [
        cancellation,
        "flight.cancelled",
        ["flight.changed", "flight.gate.changed", "flight.state.changed"],
      ],
      [uncancel, "flight.uncancelled", ["flight.state.changed", "flight.cancelled"]],
    ] as const) {
      for (const body of bodies([...changes])) {
        expect(body.type).toBe(right);
        expect(webhookSchemaErrors(body, "open")).toEqual([]);
        for (const type of wrong) {
          expect(webhookSchemaErrors({ ...body, type }, "open"), type).not.toEqual([]);
        }
      }
    }
  });

  it("refuses values of the wrong shape for their kind", () => {
    const [ce] = bodies(diffFields({ gate: "D7" }, { gate: "D9" }, SCHEDULED, ZONE));
    const wrong = (change: Record<string, unknown>) => {
      const body = structuredClone(ce) as { type: string; data: { changes: unknown[] } };
      body.data.changes = [change];
      return webhookSchemaErrors(body, "open");
    };
    const base = { kind: "gate", field: "gate", action: "changed", old: "D7", eventIds: ["e"] };
    expect(wrong({ ...base, new: "D9" })).toEqual([]);
    expect(wrong({ ...base, new: 9 })).not.toEqual([]);
    expect(wrong({ ...base, new: null })).not.toEqual([]);
    expect(wrong({ ...base, new: "D9", action: "added" })).not.toEqual([]);
    expect(wrong({ ...base, new: "D9", state: "BRD" })).not.toEqual([]);
    expect(wrong({ ...base, new: "D9", eventIds: [] })).not.toEqual([]);
    expect(wrong({ ...base, new: "D9", correction: false })).not.toEqual([]);
  });

  it("requires sequence, an integer of at least 1, in both formats", () => {
    for (const body of bodies(diffFields({ gate: "D7" }, { gate: "D9" }, SCHEDULED, ZONE))) {
      const { sequence: _, ...without } = body;
      expect(webhookSchemaErrors(without)).not.toEqual([]);
      expect(webhookSchemaErrors({ ...body, sequence: 1 })).toEqual([]);
      expect(webhookSchemaErrors({ ...body, sequence: 42 })).toEqual([]);
      expect(webhookSchemaErrors({ ...body, sequence: 0 })).not.toEqual([]);
      expect(webhookSchemaErrors({ ...body, sequence: 1.5 })).not.toEqual([]);
      expect(webhookSchemaErrors({ ...body, sequence: "3" })).not.toEqual([]);
    }
  });

  it("allows unknown fields as receivers must, and flags them when closed", () => {
    for (const body of bodies(diffFields({ gate: "D7" }, { gate: "D9" }, SCHEDULED, ZONE))) {
      const data = (body.data ?? body) as Record<string, unknown>;
      data.upgrade = { seat: "1A" };
      expect(webhookSchemaErrors(body, "open")).toEqual([]);
      expect(webhookSchemaErrors(body, "closed").join("\n")).toContain("(upgrade)");
    }
  });
});
