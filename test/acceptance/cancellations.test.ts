/**
 * Cancellations and diversions as the upstream makes them: the state list is
 * replaced (`["BRD"]` → `["CNX"]`, `["AIR","EXP"]` → `["DIV"]`), never appended to, so
 * every such alert carries the new state and the withdrawn ones. A receiver that
 * routes on the webhook's event type — as docs/delivery.md invites — must still see
 * each cancellation as `flight.cancelled` (also when a gate moved with it), each
 * diversion as `flight.diverted` and the un-cancel as `flight.uncancelled`, in both
 * webhook formats; the duty manager's Slack channel and mailbox, and the pier's Slack
 * channel that follows states, hear them in words.
 */
import { expect as assert, describe, it } from "vitest";
import type { WebhookReceiver } from "../support/webhook-receiver.js";
import { webhookSchemaErrors } from "../support/webhook-schema.js";
import { arrival, departure } from "./cast.js";
import { type ChangePattern, email, type Matcher, slack, webhook } from "./deliveries.js";
import { type Step, timeline } from "./timeline.js";

const RULES = `
rules:
  - id: duty
    changes: [cancelled, uncancelled, diverted]
    channels:
      - { type: slack, url: "\${RULE_SLACK_URL}/duty" }
      - { type: email, to: [duty@airport.example] }
  - id: pier-d
    flights: { pier: D }
    changes: [gate, state]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/pier-d" }]
  - id: feed
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
  - id: feed-json
    channels:
      - type: webhook
        url: \${RULE_WEBHOOK_URL}?format=json
        secret: \${RULE_WEBHOOK_SECRET}
        format: json
`;

const CNX_ADDED = { kind: "state", action: "added", state: "CNX" } as const;
const DIV_ADDED = { kind: "state", action: "added", state: "DIV" } as const;
const CNX_WITHDRAWN = { kind: "state", action: "withdrawn", state: "CNX" } as const;
const withdrawn = (state: string) => ({ kind: "state", action: "withdrawn", state }) as const;
const added = (state: string) => ({ kind: "state", action: "added", state }) as const;

/** The type each feed delivery about `flight` carrying `change` must have. */
interface TypeExpectation {
  flight: string;
  change: ChangePattern;
  type: string;
}

describe("acceptance: cancellations and diversions that replace the states", () => {
  it("types them by what they mean on both webhook formats, and says them on Slack and by email", async () => {
    const tl = timeline({
      name: "cancellations",
      cast: [
        departure("KL1501", { gate: "D4", in: "2h", states: ["BRD"], codeshares: ["DL7501"] }),
        departure("KL1502", { gate: "D6", in: "3h" }),
        arrival("KL1503", { airport: "LHR", in: "1h", states: ["AIR", "EXP"] }),
        departure("KL1504", { gate: "E3", in: "2h", states: ["DEL", "GTO"] }),
      ],
      rules: RULES,
    });
    const types: TypeExpectation[] = [];
    const feeds = (flight: string, changes: ChangePattern[], type: string) => {
      types.push({ flight, change: changes[0] ?? {}, type });
      return ["feed", "feed-json"].map((rule) =>
        changes.reduce((m, c) => m.change(c), webhook(rule).about(flight)),
      );
    };
    const expectAll = (step: Step, matchers: Matcher[]): Step => {
      for (const m of matchers) step.expect(m);
      return step;
    };
    let receiver: WebhookReceiver | undefined;
    tl.at("0s").do("keep the webhook receiver", (w) => {
      receiver = w.webhook;
    });

    // Boarding, then cancelled: ["BRD"] → ["CNX"].
    expectAll(tl.at("1s").cancel("KL1501"), [
      ...feeds("KL1501", [CNX_ADDED, withdrawn("BRD")], "flight.cancelled"),
      slack("duty").about("KL1501").saying("now cancelled"),
      email("duty").about("KL1501").to("duty@airport.example").saying("now cancelled"),
      slack("pier-d").about("KL1501").saying("now cancelled").saying("no longer boarding"),
    ]);
    // Cancelled and moved off its gate in one update: still a cancellation.
    expectAll(
      tl
        .at("2s")
        .update(
          "KL1502",
          { gate: "E5", pier: "E", publicFlightState: { flightStates: ["CNX"] } },
          "KL1502 cancelled, gate D6 → E5",
        ),
      [
        ...feeds(
          "KL1502",
          [CNX_ADDED, withdrawn("SCH"), { kind: "gate", old: "D6", new: "E5" }],
          "flight.cancelled",
        ),
        slack("duty").about("KL1502").saying("now cancelled"),
        email("duty").about("KL1502").saying("now cancelled"),
        slack("pier-d").about("KL1502").saying("gate D6 → E5").saying("now cancelled"),
      ],
    );
    // Airborne, then diverted: ["AIR","EXP"] → ["DIV"].
    expectAll(tl.at("3s").divert("KL1503"), [
      ...feeds("KL1503", [DIV_ADDED, withdrawn("AIR"), withdrawn("EXP")], "flight.diverted"),
      slack("duty").about("KL1503").saying("now diverted"),
      email("duty").about("KL1503").saying("now diverted"),
    ]);
    // Delayed with its gate open, then cancelled: ["DEL","GTO"] → ["CNX"].
    expectAll(tl.at("3s").cancel("KL1504"), [
      ...feeds("KL1504", [CNX_ADDED, withdrawn("DEL"), withdrawn("GTO")], "flight.cancelled"),
      slack("duty").about("KL1504").saying("now cancelled"),
      email("duty").about("KL1504").saying("now cancelled"),
    ]);
    // The cancellation withdrawn: ["CNX"] → ["BRD"] again.
    expectAll(tl.at("4.5s").uncancel("KL1501"), [
      ...feeds("KL1501", [CNX_WITHDRAWN, added("BRD")], "flight.uncancelled"),
      slack("duty").about("KL1501").saying("no longer cancelled"),
      email("duty").about("KL1501").saying("no longer cancelled"),
      slack("pier-d").about("KL1501").saying("no longer cancelled").saying("now boarding"),
    ]);

    const { deliveries } = await tl.run();

    // Every feed delivery has the type of what it means, in both formats.
    const raw = receiver?.deliveries ?? [];
    assert(raw.length).toBe(deliveries.filter((d) => d.channel === "webhook").length);
    for (const { flight, change, type } of types) {
      const seen = raw.filter((d) => {
        const data = dataOf(d.body);
        return (
          data.flight.flightNames.includes(flight) &&
          data.changes.some((c) =>
            Object.entries(change).every(
              ([k, v]) => JSON.stringify(c[k as keyof typeof c]) === JSON.stringify(v),
            ),
          )
        );
      });
      const formats = seen.map((d) => (dataOf(d.body) === d.body ? "json" : "cloudevents"));
      assert(formats.sort(), `${flight} ${type}`).toEqual(["cloudevents", "json"]);
      assert(
        seen.map((d) => (d.body as { type: string }).type),
        `${flight} ${type}`,
      ).toEqual([type, type]);
    }
    // Each body keeps the published contract (schemas/webhook.schema.json), which also
    // says that the type is the alert's most significant change.
    for (const d of raw) assert(webhookSchemaErrors(d.body), d.id).toEqual([]);
    // A receiver routing on the type sees every cancellation, and nothing else as one.
    const cancelled = raw.filter((d) => (d.body as { type: string }).type === "flight.cancelled");
    assert(cancelled.map((d) => dataOf(d.body).flight.mainFlight).sort()).toEqual(
      ["KL1501", "KL1501", "KL1502", "KL1502", "KL1504", "KL1504"].sort(),
    );
  }, 90_000);
});

interface FeedData {
  flight: { mainFlight: string; flightNames: string[] };
  changes: Record<string, unknown>[];
}

/** The data of a feed delivery: the CloudEvent's `data`, or the plain JSON body itself. */
function dataOf(body: unknown): FeedData {
  const b = body as { specversion?: string; data?: FeedData } & FeedData;
  return b.specversion !== undefined && b.data ? b.data : b;
}
