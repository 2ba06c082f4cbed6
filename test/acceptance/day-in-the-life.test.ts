/**
 * A morning at the airport with several rules at once: a passenger who holds a
 * codeshare ticket (email), the pier D ops team (Slack, flaps suppressed), a gate desk
 * that wants one message per burst (Slack, `group_wait`), the duty manager
 * (cancellations and diversions to Slack and email), the arrivals hall (belts and
 * diversions) and a partner's feed of every change (signed webhook). Every delivery
 * must come once, in its window, and nothing else may come at all.
 */
import { expect as assert, describe, it } from "vitest";
import { arrival, departure } from "./cast.js";
import { email, slack, webhook } from "./deliveries.js";
import { timeline } from "./timeline.js";

const RULES = {
  "passenger.yaml": `
rules:
  - id: maria
    description: Maria's ticket says DL5101, a codeshare of KL1101
    flights: { flight: DL5101 }
    changes:
      - { kind: gate, within: 4h }
      - { kind: departure_time, delay_at_least: 15m, shift_at_least: 15m }
      - { kind: state, states: [BRD] }
      - cancelled
      - uncancelled
    channels:
      - type: email
        to: [maria@example.com]
        subject: "{flights}: {changes}"
    flapping: { window: 6s, action: correct }
`,
  "ops.yaml": `
rules:
  - id: pier-d
    flights: { direction: departure, pier: D }
    changes: [gate, { kind: state, states: [BRD, GCL] }]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/pier-d" }]
    flapping: { window: 4s, action: suppress }
  - id: gate-desk
    flights: { flight: KL1103 }
    changes: [gate, departure_time]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/desk" }]
    group_wait: 6s
  - id: duty
    changes: [cancelled, uncancelled, diverted]
    channels:
      - { type: slack, url: "\${RULE_SLACK_URL}/duty" }
      - { type: email, to: [duty@airport.example] }
`,
  "arrivals.yaml": `
rules:
  - id: arrivals-hall
    flights: { direction: arrival }
    changes: [belt, diverted]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/arrivals" }]
`,
  "feed.yaml": `
rules:
  - id: feed
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`,
};

const ETD = "publicEstimatedOffBlockTime";
/** Maria's `{flights}`: the number on her ticket first, then the operating one and the rest. */
const SOLD_AS = "DL5101, KL1101, AF5101";

describe("acceptance: a day in the life", () => {
  it("tells each rule what it asked for, once, and stays quiet about noise", async () => {
    const tl = timeline({
      name: "day-in-the-life",
      cast: [
        departure("KL1101", { gate: "D7", in: "2h", codeshares: ["DL5101", "AF5101"] }),
        departure("KL1103", { gate: "E2", in: "3h" }),
        departure("KL1104", { gate: "C3", in: "2h30m" }),
        departure("KL1105", { gate: "E8", in: "4h" }),
        arrival("KL1201", { airport: "LHR", in: "1h" }),
        arrival("KL1202", { airport: "CDG", in: "40m" }),
      ],
      rules: RULES,
    });
    const feed = (flight: string) => webhook("feed").about(flight);
    const maria = email("maria").about("KL1101").to("maria@example.com").saying(SOLD_AS);
    const pierD = slack("pier-d").about("KL1101").saying("AF5101, DL5101");

    // Maria's gate flaps D7 → D9 → D7: she hears the move at once and one correction;
    // pier D (suppress) hears nothing; the feed hears both moves.
    tl.at("1s")
      .gate("KL1101", "D9")
      .expect(maria.saying("gate D7 → D9"))
      .expect(feed("DL5101").change({ field: "gate", old: "D7", new: "D9" }))
      // The gate desk's burst opens: gate now, a delay and another gate to come. One
      // message, no earlier than group_wait after the first change, the gate once.
      .gate("KL1103", "E4")
      .expect(feed("KL1103").change({ field: "gate", old: "E2", new: "E4" }))
      .expect(slack("gate-desk").about("KL1103").saying("gate E2 → E6").saying("(30 min late)"), {
        after: "6s",
      });
    // 10 minutes late: under Maria's 15-minute threshold.
    tl.at("2s")
      .delay("KL1101", "10m")
      .expect(feed("KL1101").change({ field: ETD, action: "assigned", delayMinutes: 10 }))
      .touch("KL1104");
    tl.at("3s")
      .gate("KL1101", "D7")
      .expect(maria.saying("gate D9 → D7 (correction)"))
      .expect(feed("KL1101").change({ field: "gate", old: "D9", new: "D7" }))
      .delay("KL1103", "30m")
      .expect(feed("KL1103").change({ field: ETD, action: "assigned", delayMinutes: 30 }));
    // Crossing 15 minutes: one mail.
    tl.at("4s")
      .delay("KL1101", "20m")
      .expect(maria.saying("(20 min late)"))
      .expect(feed("KL1101").change({ field: ETD, delayMinutes: 20, shiftMinutes: 10 }))
      .cancel("KL1105")
      .expect(slack("duty").about("KL1105").saying("now cancelled"))
      .expect(email("duty").about("KL1105").to("duty@airport.example").saying("now cancelled"))
      .expect(
        feed("KL1105")
          .change({ state: "CNX", action: "added" })
          .change({ state: "SCH", action: "withdrawn" }),
      );
    tl.at("5s")
      .gate("KL1103", "E6")
      .expect(feed("KL1103").change({ field: "gate", old: "E4", new: "E6" }))
      .belt("KL1202", "12")
      .expect(slack("arrivals-hall").about("KL1202").saying("belt 12"))
      .expect(feed("KL1202").change({ field: "baggageClaim", action: "assigned", new: ["12"] }));
    // 25 minutes: 5 more than Maria last heard, under her 15-minute step.
    tl.at("6s")
      .delay("KL1101", "25m")
      .expect(feed("KL1101").change({ field: ETD, delayMinutes: 25, shiftMinutes: 5 }))
      .uncancel("KL1105")
      .expect(slack("duty").about("KL1105").saying("no longer cancelled"))
      .expect(email("duty").about("KL1105").saying("no longer cancelled"))
      .expect(
        feed("KL1105")
          .change({ state: "CNX", action: "withdrawn" })
          .change({ state: "SCH", action: "added" }),
      );
    // A real move inside Maria's correction window: held until the window ends, then
    // sent as its net change (not a correction); pier D holds it for its flap window.
    tl.at("7s")
      .gate("KL1101", "D8")
      .expect(maria.saying("gate D7 → D8"), { after: "2s" })
      .expect(pierD.saying("D7 → D8"), { after: "4s" })
      .expect(feed("KL1101").change({ field: "gate", old: "D7", new: "D8" }))
      .divert("KL1201")
      .expect(slack("arrivals-hall").about("KL1201").saying("now diverted"))
      .expect(slack("duty").about("KL1201").saying("now diverted"))
      .expect(email("duty").about("KL1201").saying("now diverted"))
      .expect(
        feed("KL1201")
          .change({ state: "DIV", action: "added" })
          .change({ state: "SCH", action: "withdrawn" }),
      );
    // Noise: new lastUpdatedAt, no field changed.
    tl.at("8s").touch("KL1101").touch("KL1104");
    // 40 minutes: 20 more than Maria last heard.
    tl.at("9s")
      .delay("KL1101", "40m")
      .expect(maria.saying("(40 min late)"))
      .expect(feed("KL1101").change({ field: ETD, delayMinutes: 40, shiftMinutes: 15 }));
    tl.at("10s")
      .states("KL1101", "BRD")
      .expect(maria.saying("now boarding"))
      .expect(pierD.saying("now boarding"), { after: "4s" })
      .expect(
        feed("KL1101")
          .change({ state: "BRD", action: "added" })
          .change({ state: "SCH", action: "withdrawn" }),
      );

    tl.nothing(slack("pier-d").saying("D9"));
    tl.nothing(email("maria").saying("10 min late"));
    tl.nothing(email("maria").saying("25 min late"));
    tl.nothing(email("maria").saying("no longer scheduled"));
    tl.nothing(webhook("feed").about("KL1104"));
    tl.nothing(slack("arrivals-hall").about("KL1101"));
    tl.nothing(slack("pier-d").about("KL1103"));
    tl.nothing(slack("gate-desk").saying("E4"));

    const { deliveries } = await tl.run();
    // One alert per physical flight, carrying every number it is sold under.
    for (const d of deliveries.filter((x) => x.channel === "webhook" && x.flight === "KL1101")) {
      assert(d.flightNames).toEqual(["KL1101", "AF5101", "DL5101"]);
    }
  }, 90_000);
});
