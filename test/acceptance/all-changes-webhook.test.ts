/**
 * Another system that wants every change of every flight, as rules/integration.yaml
 * asks for it: one rule with no filters, a signed CloudEvents webhook, and the same as
 * plain JSON. Every change of the cast arrives exactly once on each, with its
 * structured old and new values — a flight added after the baseline and later removed
 * included — and noise (a new stamp, a field gone missing) arrives nowhere. Every body
 * matches the published schema (schemas/webhook.schema.json), and between them they
 * carry every event type, change kind and `current` field it documents.
 */
import { expect as assert, describe, it } from "vitest";
import { EVENT_TYPES } from "../../src/deliver/event-type.js";
import { CHANGE_KINDS } from "../../src/diff/change.js";
import type { WebhookReceiver } from "../support/webhook-receiver.js";
import { webhookSchema, webhookSchemaErrors } from "../support/webhook-schema.js";
import { afterSchedule, arrival, castRecords, departure } from "./cast.js";
import { type ChangePattern, webhook } from "./deliveries.js";
import { type Step, timeline } from "./timeline.js";

const RULES = `
rules:
  - id: feed
    description: All changes of all flights to the partner's system
    labels: { consumer: partner }
    channels:
      - type: webhook
        url: \${RULE_WEBHOOK_URL}
        secret: \${RULE_WEBHOOK_SECRET}
        format: cloudevents
  - id: feed-json
    channels:
      - type: webhook
        url: \${RULE_WEBHOOK_URL}?format=json
        secret: \${RULE_WEBHOOK_SECRET}
        format: json
`;

const ETD = "publicEstimatedOffBlockTime";
const ETA = "estimatedLandingTime";
const LATE = departure("KL1409", { gate: "B2", in: "2h", codeshares: ["DL6409"] });

/** The CloudEvents type a delivery about `flight` with a change like `change` must carry. */
interface TypeExpectation {
  flight: string;
  change: ChangePattern;
  type: string;
}

/** The event type a delivery must carry; a wider window (a removal waits for the re-read). */
interface BothOptions {
  type?: string;
  within?: string;
}

/**
 * Expects one delivery on each feed about `flight` carrying every change given, and
 * notes the event type it must have in `types`.
 */
function expectBoth(
  types: TypeExpectation[],
  step: Step,
  flight: string,
  changes: ChangePattern[],
  options: BothOptions = {},
): Step {
  for (const rule of ["feed", "feed-json"]) {
    const matcher = changes.reduce((m, c) => m.change(c), webhook(rule).about(flight));
    step.expect(matcher, options.within ? { within: options.within } : {});
  }
  if (options.type && changes[0]) types.push({ flight, change: changes[0], type: options.type });
  return step;
}

describe("acceptance: an all-changes webhook", () => {
  it("delivers every change of every flight once, signed, with old and new values", async () => {
    const tl = timeline({
      name: "all-changes",
      cast: [
        departure("KL1401", { gate: "D4", in: "2h", codeshares: ["DL6401"] }),
        departure("KL1402", { gate: "E2", in: "3h" }),
        arrival("KL1403", { airport: "LHR", in: "1h" }),
        departure("KL1404", { gate: "C3", in: "2h30m" }),
      ],
      rules: RULES,
      // Removals are seen by the full re-read of the horizon: often, of a short one.
      env: { RECONCILE_INTERVAL: "3s", HORIZON_PAST_DAYS: "0", HORIZON_FUTURE_DAYS: "1" },
    });
    const types: TypeExpectation[] = [];
    const both = (step: Step, flight: string, changes: ChangePattern[], options?: BothOptions) =>
      expectBoth(types, step, flight, changes, options);
    let receiver: WebhookReceiver | undefined;
    tl.at("0s").do("keep the webhook receiver", (w) => {
      receiver = w.webhook;
    });

    both(
      tl.at("1s").gate("KL1401", "D6"),
      "DL6401",
      [{ kind: "gate", field: "gate", action: "changed", old: "D4", new: "D6" }],
      { type: "flight.gate.changed" },
    );
    both(
      tl.at("1s").gate("KL1402", "F3"),
      "KL1402",
      [
        { kind: "gate", action: "changed", old: "E2", new: "F3" },
        { kind: "pier", field: "pier", action: "changed", old: "E", new: "F" },
      ],
      // A gate move with its pier: a gate change.
      { type: "flight.gate.changed" },
    );
    both(
      tl
        .at("2s")
        .update("KL1402", { terminal: 2 })
        // Gone missing: unknown, not a change (and not a removal either).
        .update("KL1404", { gate: undefined, pier: undefined }, "KL1404 loses its gate"),
      "KL1402",
      [{ kind: "terminal", field: "terminal", old: 1, new: 2 }],
      { type: "flight.terminal.changed" },
    );
    both(tl.at("2s").delay("KL1403", "15m"), "KL1403", [
      { kind: "time", field: ETA, action: "assigned", old: undefined, delayMinutes: 15 },
    ]);
    both(
      tl.at("2s").do("add KL1409 (DL6409)", (w) => {
        for (const flight of castRecords(LATE, w.sim.simulator.clock.now())) {
          w.apply({ kind: "add", flight });
        }
      }),
      "DL6409",
      [{ kind: "flight", field: "flight", action: "added" }],
      { type: "flight.added" },
    );
    both(tl.at("3s").delay("KL1401", "25m"), "KL1401", [
      { kind: "time", field: ETD, action: "assigned", old: undefined, delayMinutes: 25 },
    ]);
    both(tl.at("3s").belt("KL1403", "12"), "KL1403", [
      { kind: "belt", field: "baggageClaim", action: "assigned", old: undefined, new: ["12"] },
    ]);
    both(
      tl.at("3s").update("KL1404", {
        route: { destinations: ["WAW", "KRK"], eu: "S", visa: false },
      }),
      "KL1404",
      [{ kind: "route", field: "route", old: ["WAW"], new: ["KRK", "WAW"] }],
    );
    tl.at("4s").touch("KL1401").touch("KL1403");
    both(
      tl.at("4s").cancel("KL1402"),
      "KL1402",
      // The states replaced, as the upstream cancels: one alert, typed by its meaning.
      [
        { kind: "state", action: "added", state: "CNX" },
        { kind: "state", action: "withdrawn", state: "SCH" },
      ],
      { type: "flight.cancelled" },
    );
    both(tl.at("4s").gate("KL1409", "B4"), "KL1409", [{ field: "gate", old: "B2", new: "B4" }]);
    both(tl.at("5s").delay("KL1401", "40m"), "KL1401", [
      { field: ETD, action: "changed", delayMinutes: 40, shiftMinutes: 15 },
    ]);
    both(tl.at("5s").belt("KL1403", "14"), "KL1403", [
      { field: "baggageClaim", action: "changed", old: ["12"], new: ["14"] },
    ]);
    both(
      tl.at("5s").update("KL1404", { aircraftType: { iataMain: "789", iataSub: "789" } }),
      "KL1404",
      [{ kind: "aircraftType", action: "assigned", new: "789/789" }],
    );
    both(
      tl.at("6s").update("KL1401", { codeshares: { codeshares: ["DL6401", "AF6401"] } }),
      "KL1401",
      [{ kind: "codeshares", old: ["DL6401"], new: ["AF6401", "DL6401"] }],
    );
    both(
      tl.at("6s").uncancel("KL1402"),
      "KL1402",
      [
        { kind: "state", action: "withdrawn", state: "CNX" },
        { kind: "state", action: "added", state: "SCH" },
      ],
      { type: "flight.uncancelled" },
    );
    both(
      tl.at("6s").do("remove KL1409", (w) => {
        w.apply({ kind: "remove", target: { flightName: "KL1409" } });
      }),
      "KL1409",
      [{ kind: "flight", action: "removed" }],
      { type: "flight.removed", within: "3s" },
    );
    both(
      tl.at("7s").divert("KL1403"),
      "KL1403",
      [
        { kind: "state", action: "added", state: "DIV" },
        { kind: "state", action: "withdrawn", state: "SCH" },
      ],
      { type: "flight.diverted" },
    );
    // The gate comes back, elsewhere: a change from the last gate known.
    both(tl.at("7s").update("KL1404", { gate: "C5", pier: "C" }), "KL1404", [
      { kind: "gate", old: "C3", new: "C5" },
    ]);
    both(
      tl.at("8s").states("KL1401", "BRD"),
      "KL1401",
      [
        { kind: "state", action: "added", state: "BRD" },
        { kind: "state", action: "withdrawn", state: "SCH" },
      ],
      { type: "flight.state.changed" },
    );
    both(
      tl.at("8s").do("KL1404 check-in opens", (w) => {
        const record = w.record("KL1404");
        const desks = { desks: [{ position: 3 }, { position: 4 }] };
        w.apply({
          kind: "update",
          target: { flightName: "KL1404" },
          patch: {
            checkinAllocations: {
              checkinAllocations: [
                {
                  startTime: afterSchedule(record, "-3h"),
                  endTime: afterSchedule(record, "-45m"),
                  rows: { rows: [{ position: "12", desks }] },
                },
              ],
            },
          },
        });
      }),
      "KL1404",
      [{ kind: "checkin", field: "checkinAllocations", action: "assigned" }],
      { type: "flight.checkin.changed" },
    );
    both(
      tl.at("8s").update("KL1402", { aircraftRegistration: "PHBXA", serviceType: "C" }),
      "KL1402",
      [
        { kind: "registration", field: "aircraftRegistration", action: "assigned", new: "PHBXA" },
        { kind: "serviceType", field: "serviceType", old: "J", new: "C" },
      ],
      { type: "flight.registration.changed" },
    );
    both(
      tl.at("9s").update("KL1403", { serviceType: "H" }),
      "KL1403",
      [{ kind: "serviceType", old: "J", new: "H" }],
      { type: "flight.service_type.changed" },
    );
    both(
      tl.at("9s").update("KL1404", { pier: "B" }),
      "KL1404",
      [{ kind: "pier", old: "C", new: "B" }],
      { type: "flight.pier.changed" },
    );

    const { deliveries } = await tl.run();

    // Every request was signed and answered once: nothing was retried.
    const raw = receiver?.deliveries ?? [];
    assert(raw.length).toBe(deliveries.length);
    assert(raw.filter((d) => !d.verified)).toEqual([]);
    assert(new Set(raw.map((d) => d.id)).size).toBe(raw.length);

    for (const d of raw) {
      const body = d.body as Record<string, unknown>;
      const cloud = body.specversion !== undefined;
      const data = (cloud ? body.data : body) as WebhookData;
      if (data.rule.id === "feed") {
        assert(d.headers["content-type"]).toContain("application/cloudevents+json");
        assert(body).toMatchObject({
          specversion: "1.0",
          id: d.id,
          source: "/flightwatch/rules/feed",
          subject: data.flight.id,
          datacontenttype: "application/json",
        });
        assert(data.rule).toEqual({
          id: "feed",
          description: "All changes of all flights to the partner's system",
          labels: { consumer: "partner" },
        });
      } else {
        assert(d.headers["content-type"]).toContain("application/json");
        assert(body.id).toBe(d.id);
        assert(body.specversion).toBeUndefined();
      }
      // Time values say what their minutes say: new − old and new − schedule.
      for (const c of data.changes) {
        if (c.kind !== "time") continue;
        const scheduled = Date.parse(data.flight.scheduled as string);
        assert(Date.parse(c.new as string) - scheduled).toBe((c.delayMinutes ?? NaN) * 60_000);
        if (c.old !== undefined) {
          const moved = Date.parse(c.new as string) - Date.parse(c.old as string);
          assert(moved).toBe((c.shiftMinutes ?? NaN) * 60_000);
        }
      }
    }

    // Event types receivers route on, in both formats.
    for (const { flight, change, type } of types) {
      const seen = raw.filter((d) => {
        const body = d.body as Record<string, unknown>;
        const data = (body.specversion !== undefined ? body.data : body) as WebhookData;
        return (
          data.flight.flightNames.includes(flight) &&
          data.changes.some((c) =>
            Object.entries(change).every(
              ([k, v]) => JSON.stringify(c[k as keyof typeof c]) === JSON.stringify(v),
            ),
          )
        );
      });
      assert(seen.map((d) => (d.body as { type: string }).type)).toEqual([type, type]);
    }

    // The published contract: every body matches schemas/webhook.schema.json with only
    // documented fields (the timeline checks it too), and between them the bodies carry
    // every event type, every kind of change and every field of `current` it documents.
    for (const d of raw) assert(webhookSchemaErrors(d.body), d.id).toEqual([]);
    const defs = webhookSchema().$defs as { current: { properties: Record<string, unknown> } };
    const sent = raw.map((d) => {
      const body = d.body as Record<string, unknown>;
      return {
        type: body.type as string,
        data: (body.specversion !== undefined ? body.data : body) as WebhookData,
      };
    });
    assert(new Set(sent.map((s) => s.type))).toEqual(new Set(EVENT_TYPES));
    assert(new Set(sent.flatMap((s) => s.data.changes.map((c) => c.kind)))).toEqual(
      new Set(CHANGE_KINDS),
    );
    assert(new Set(sent.flatMap((s) => Object.keys(s.data.current ?? {})))).toEqual(
      new Set(Object.keys(defs.current.properties)),
    );

    // Codeshares: one alert per physical flight, with every number it is sold under.
    const names = (flight: string) =>
      deliveries.filter((d) => d.flight === flight).map((d) => d.flightNames);
    assert(names("KL1409")).toEqual(Array(6).fill(["KL1409", "DL6409"]));
  }, 90_000);
});

interface WebhookData {
  rule: { id: string };
  current?: Record<string, unknown>;
  flight: { id: string; flightNames: string[]; scheduled?: string };
  changes: {
    kind: string;
    old?: unknown;
    new?: unknown;
    delayMinutes?: number;
    shiftMinutes?: number;
  }[];
}
