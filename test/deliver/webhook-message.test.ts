import { type CloudEvent, HTTP } from "cloudevents";
import { describe, expect, it } from "vitest";
import { eventSource, webhookMessage } from "../../src/deliver/webhook-message.js";
import { describeAlert } from "../../src/render/alert-text.js";
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

describe("webhook message: sequence", () => {
  it("carries the alert's sequence: a CloudEvents extension attribute, and a top-level field in JSON", () => {
    const { channel, rule, alert } = gateAlert();
    const sequenced = { ...alert, sequence: 1_795_700_000_123 };
    const notification = notificationOf(sequenced, rule);
    const message = webhookMessage(notification, channel, { rule, zone: ZONE });
    const event = HTTP.toEvent({
      headers: { "content-type": message.contentType },
      body: message.body,
    }) as CloudEvent<Record<string, unknown>>;
    expect(event.validate()).toBe(true);
    expect(Number(event.sequence)).toBe(1_795_700_000_123);
    expect(Object.keys(JSON.parse(message.body))).toContain("sequence");
    const json = webhookMessage(notification, webhookChannel(HOOK_URL, { format: "json" }), {
      rule,
      zone: ZONE,
    });
    expect(JSON.parse(json.body).sequence).toBe(1_795_700_000_123);
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

describe("webhook message: event type", () => {
  it("types a state-replacing cancellation flight.cancelled in both formats and lists every change", () => {
    const channel = webhookChannel(HOOK_URL);
    const rule = webhookRule(channel);
    // ["BRD"] → ["CNX"], as the upstream cancels: CNX added, BRD withdrawn.
    const cancelled = state("CNX", "added", 2);
    cancelled.old = ["BRD"];
    cancelled.new = ["CNX"];
    const boarding = state("BRD", "withdrawn", 2);
    boarding.old = ["BRD"];
    boarding.new = ["CNX"];
    const alert = alertOf([boarding, cancelled]);
    const notification = notificationOf(alert, rule);
    const ce = JSON.parse(webhookMessage(notification, channel, { rule, zone: ZONE }).body);
    const json = JSON.parse(
      webhookMessage(notification, webhookChannel(HOOK_URL, { format: "json" }), {
        rule,
        zone: ZONE,
      }).body,
    );
    expect(ce.type).toBe("flight.cancelled");
    expect(json.type).toBe("flight.cancelled");
    expect(
      ce.data.changes.map((c: { state: string; action: string }) => `${c.state} ${c.action}`),
    ).toEqual(["BRD withdrawn", "CNX added"]);
  });
});
