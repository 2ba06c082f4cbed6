import { type CloudEvent, HTTP } from "cloudevents";
import { describe, expect, it } from "vitest";
import {
  alertEventType,
  changeEventType,
  eventSource,
  webhookMessage,
} from "../../src/deliver/webhook-message.js";
import type { Change } from "../../src/diff/change.js";
import { describeAlert } from "../../src/dispatch/alert-text.js";
import { rule as plainRule } from "../dispatch/dispatch-builder.js";
import {
  alertOf,
  at,
  gate,
  notificationOf,
  state,
  time,
  webhookChannel,
  webhookRule,
  ZONE,
} from "./webhook-fixtures.js";

const HOOK_URL = "https://hooks.example.com/flights";

function gateAlert() {
  const channel = webhookChannel(HOOK_URL);
  const rule = webhookRule(channel);
  const alert = alertOf([gate("D7", "D9", 1)]);
  return { channel, rule, alert, notification: notificationOf(alert, rule) };
}

describe("webhook message: CloudEvents", () => {
  it("is a valid CloudEvents 1.0 structured event that the cloudevents package reads back", () => {
    const { channel, rule, alert, notification } = gateAlert();
    const message = webhookMessage(notification, channel, { rule, zone: ZONE });
    expect(message.contentType).toBe("application/cloudevents+json");

    const event = HTTP.toEvent({
      headers: { "content-type": message.contentType },
      body: message.body,
    }) as CloudEvent<Record<string, unknown>>;
    expect(event.validate()).toBe(true);
    expect(event.specversion).toBe("1.0");
    expect(event.id).toBe(notification.id);
    expect(event.source).toBe("/flightwatch/rules/r1");
    expect(event.type).toBe("flight.gate.changed");
    expect(event.subject).toBe("123456789012345678");
    expect(event.time).toBe(new Date(alert.decidedAt).toISOString());
    expect(event.datacontenttype).toBe("application/json");
    // No extension attributes slipped in beside the data.
    expect(Object.keys(JSON.parse(message.body))).toEqual([
      "specversion",
      "id",
      "source",
      "type",
      "subject",
      "time",
      "datacontenttype",
      "data",
    ]);
  });

  it("carries the rule, the flight, its current fields and each change old → new", () => {
    const { channel, rule, alert, notification } = gateAlert();
    const body = JSON.parse(webhookMessage(notification, channel, { rule, zone: ZONE }).body);
    expect(body.data).toStrictEqual({
      summary: describeAlert(alert, ZONE),
      alertId: alert.id,
      rule: { id: "r1", description: "Gate moves of KL1234", labels: { team: "ops" } },
      flight: {
        key: "D:2026-11-21:KL1234",
        id: "123456789012345678",
        mainFlight: "KL1234",
        flightNames: ["KL1234"],
        direction: "D",
        scheduleDate: "2026-11-21",
        // Flight times as the upstream writes them: airport offset.
        scheduled: "2026-11-21T11:00:00.000+01:00",
      },
      current: { gate: "D9" },
      changes: [
        {
          kind: "gate",
          field: "gate",
          action: "changed",
          old: "D7",
          new: "D9",
          eventIds: alert.changes[0]?.eventIds,
        },
      ],
      openedAt: "2026-11-21T08:30:00.000Z",
      decidedAt: "2026-11-21T08:31:00.000Z",
    });
    expect(body.data.summary).toContain("gate D7 → D9");
  });

  it("writes times with the airport's offset, keeps an absent old value absent and marks corrections", () => {
    const channel = webhookChannel(HOOK_URL);
    const rule = webhookRule(channel);
    const moved = time(undefined, 25, 1);
    const alert = alertOf(
      [moved],
      {},
      {
        times: { publicEstimatedOffBlockTime: Date.parse("2026-11-21T10:25:00Z") },
        checkin: { opens: Date.parse("2026-11-21T07:00:00Z"), rows: ["12"], desks: [1, 2] },
      },
    );
    (alert.changes[0] as { correction?: boolean }).correction = true;
    const body = JSON.parse(
      webhookMessage(notificationOf(alert, rule), channel, { rule, zone: ZONE }).body,
    );
    const [change] = body.data.changes;
    expect(change).not.toHaveProperty("old");
    expect(change.new).toBe(at(25));
    expect(change.delayMinutes).toBe(25);
    expect(change.correction).toBe(true);
    expect(body.data.current).toStrictEqual({
      times: { publicEstimatedOffBlockTime: "2026-11-21T11:25:00.000+01:00" },
      checkin: { opens: "2026-11-21T08:00:00.000+01:00", rows: ["12"], desks: [1, 2] },
    });
    // Without a correction there is no `correction: false` to misread.
    const plain = alertOf([moved]);
    const plainBody = JSON.parse(
      webhookMessage(notificationOf(plain, rule), channel, { rule, zone: ZONE }).body,
    );
    expect(plainBody.data.changes[0]).not.toHaveProperty("correction");
    expect(plainBody.data).not.toHaveProperty("current");
  });

  it("writes check-in change values with the airport's offset too", () => {
    const channel = webhookChannel(HOOK_URL);
    const rule = webhookRule(channel);
    const alert = alertOf([gate("D7", "D9", 1)]);
    alert.changes[0] = {
      kind: "checkin",
      field: "checkinAllocations",
      action: "changed",
      old: { rows: ["10"], desks: [1] },
      new: { closes: Date.parse("2026-11-21T09:15:00Z"), rows: ["11"], desks: [3, 4] },
      eventIds: ["e1"],
    };
    const body = JSON.parse(
      webhookMessage(notificationOf(alert, rule), channel, { rule, zone: ZONE }).body,
    );
    expect(body.type).toBe("flight.checkin.changed");
    expect(body.data.changes[0].old).toStrictEqual({ rows: ["10"], desks: [1] });
    expect(body.data.changes[0].new).toStrictEqual({
      closes: "2026-11-21T10:15:00.000+01:00",
      rows: ["11"],
      desks: [3, 4],
    });
  });

  it("is the same text for the same notification (a retry sends the same bytes)", () => {
    const { channel, rule, notification } = gateAlert();
    const a = webhookMessage(notification, channel, { rule, zone: ZONE }).body;
    const b = webhookMessage(structuredClone(notification), channel, { rule, zone: ZONE }).body;
    expect(b).toBe(a);
  });

  it("keeps the source a valid URI reference for any rule id and leaves out a missing description", () => {
    const channel = webhookChannel(HOOK_URL);
    const rule = plainRule({ id: "gates D/E: ops #1", channels: [channel] });
    const alert = alertOf([gate("D7", "D9", 1)], { ruleId: rule.id });
    const message = webhookMessage(notificationOf(alert, rule), channel, { rule, zone: ZONE });
    const event = HTTP.toEvent({
      headers: { "content-type": message.contentType },
      body: message.body,
    }) as CloudEvent<{ rule: Record<string, unknown> }>;
    expect(event.validate()).toBe(true);
    expect(event.source).toBe(eventSource("gates D/E: ops #1"));
    expect(event.source).toBe("/flightwatch/rules/gates%20D%2FE%3A%20ops%20%231");
    expect(event.data?.rule).toStrictEqual({ id: rule.id, labels: { team: "ops" } });
  });
});

describe("webhook message: plain JSON", () => {
  it("is the CloudEvent's data with the id and type on top", () => {
    const { rule, notification } = gateAlert();
    const ce = JSON.parse(
      webhookMessage(notification, webhookChannel(HOOK_URL), { rule, zone: ZONE }).body,
    );
    const json = webhookMessage(notification, webhookChannel(HOOK_URL, { format: "json" }), {
      rule,
      zone: ZONE,
    });
    expect(json.contentType).toBe("application/json");
    expect(JSON.parse(json.body)).toStrictEqual({
      id: notification.id,
      type: "flight.gate.changed",
      ...ce.data,
    });
  });
});

describe("webhook event types", () => {
  const stateChange = (code: string, action: "added" | "withdrawn"): Change =>
    state(code, action, 1);

  it("names each kind of change", () => {
    expect(changeEventType(gate("D7", "D9", 1))).toBe("flight.gate.changed");
    expect(changeEventType(gate(undefined, "D9", 1))).toBe("flight.gate.changed");
    expect(changeEventType(time(0, 25, 1))).toBe("flight.time.changed");
    expect(changeEventType({ kind: "belt", field: "baggageClaim", action: "assigned" })).toBe(
      "flight.belt.changed",
    );
    expect(
      changeEventType({ kind: "aircraftType", field: "aircraftType", action: "changed" }),
    ).toBe("flight.aircraft_type.changed");
    expect(changeEventType({ kind: "serviceType", field: "serviceType", action: "changed" })).toBe(
      "flight.service_type.changed",
    );
    expect(changeEventType({ kind: "flight", field: "flight", action: "added" })).toBe(
      "flight.added",
    );
    expect(changeEventType({ kind: "flight", field: "flight", action: "removed" })).toBe(
      "flight.removed",
    );
  });

  it("gives cancellation and diversion their own types, but not their withdrawal", () => {
    expect(changeEventType(stateChange("CNX", "added"))).toBe("flight.cancelled");
    expect(changeEventType(stateChange("DIV", "added"))).toBe("flight.diverted");
    expect(changeEventType(stateChange("CNX", "withdrawn"))).toBe("flight.state.changed");
    expect(changeEventType(stateChange("DIV", "withdrawn"))).toBe("flight.state.changed");
    expect(changeEventType(stateChange("BRD", "added"))).toBe("flight.state.changed");
  });

  it("uses the common type of an alert's changes, and flight.changed when they differ", () => {
    expect(alertEventType([time(0, 25, 1), time(0, 40, 2, "expectedTimeBoarding")])).toBe(
      "flight.time.changed",
    );
    expect(alertEventType([gate("D7", "D9", 1), time(0, 25, 1)])).toBe("flight.changed");
    expect(alertEventType([stateChange("CNX", "added"), stateChange("BRD", "withdrawn")])).toBe(
      "flight.changed",
    );
    expect(alertEventType([])).toBe("flight.changed");
  });
});
