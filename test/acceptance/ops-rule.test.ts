/**
 * An ops team's rules, as rules/ops.yaml writes them (one Slack channel shared through
 * a YAML anchor): pier D departures except freighters, every cancellation and
 * diversion to Slack and the duty manager's mail, long KLM delays in the next hours,
 * and a pager that hears each cancellation once per cool-down.
 */
import { describe, it } from "vitest";
import { arrival, departure } from "./cast.js";
import { email, slack } from "./deliveries.js";
import { timeline } from "./timeline.js";

const RULES = `
x-ops-slack: &ops-slack
  type: slack
  name: ops
  url: \${RULE_SLACK_URL}/ops

rules:
  - id: pier-d-departures
    labels: { team: pier-d }
    flights:
      direction: departure
      pier: D # also matches a flight moving away from pier D
      not: { service_type: F } # no freighters
    changes:
      - gate
      - state
      - { kind: departure_time, shift_at_least: 5m }
    channels: [*ops-slack]

  - id: cancellations-and-diversions
    labels: { team: duty-manager }
    changes: [cancelled, uncancelled, diverted]
    channels:
      - *ops-slack
      - type: email
        to: ["\${RULE_DUTY_MANAGER_EMAIL:-duty@example.com}"]

  - id: long-delays-klm
    flights:
      airline: [KL, KLM]
      direction: departure
      schedule: { from: -1h, to: +6h }
    changes:
      - { kind: departure_time, delay_at_least: 60m, shift_at_least: 30m }
    channels: [*ops-slack]
    cool_down: 1h

  - id: duty-pager
    description: each cancellation once an hour, however often it is withdrawn and made again
    changes: [cancelled]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/pager" }]
    cool_down: 1h
`;

describe("acceptance: an ops team's rules", () => {
  it("filters by pier (either side of a move), direction, airline, schedule and service type, and cools down", async () => {
    const tl = timeline({
      name: "ops-rule",
      cast: [
        departure("KL1301", { gate: "D3", in: "2h" }),
        departure("KL1302", { gate: "E2", in: "2h" }),
        departure("KL1303", { gate: "E7", in: "2h" }),
        departure("KL1304", { gate: "D5", in: "3h" }),
        departure("KL1305", { gate: "D6", in: "2h", serviceType: "F" }),
        departure("HV5306", { gate: "D4", in: "2h" }),
        departure("KL1307", { gate: "F1", in: "8h" }),
        departure("KL1308", { gate: "E9", in: "2h" }),
        arrival("KL1311", { gate: "D9", airport: "LHR", in: "1h" }),
        arrival("KL1312", { airport: "MAD", in: "1h" }),
      ],
      rules: RULES,
    });
    const pierD = (flight: string) => slack("pier-d-departures").about(flight);
    const duty = (flight: string) => slack("cancellations-and-diversions").about(flight);
    const dutyMail = (flight: string) =>
      email("cancellations-and-diversions").about(flight).to("duty@example.com");

    // Leaving pier D is news for pier D, the boarding call seen with it included.
    tl.at("1s")
      .update(
        "KL1301",
        { gate: "E5", pier: "E", publicFlightState: { flightStates: ["BRD"] } },
        "KL1301 to gate E5, boarding",
      )
      .expect(pierD("KL1301").saying("gate D3 → E5").saying("now boarding"))
      // Elsewhere, an arrival, a freighter: not pier D departures' business.
      .gate("KL1302", "E4")
      .gate("KL1311", "D10")
      .gate("KL1305", "D8");
    // Coming onto pier D is news too.
    tl.at("2s")
      .gate("KL1303", "D2")
      .expect(pierD("KL1303").saying("gate E7 → D2"))
      // A first estimate 3 minutes late moves less than 5 minutes: nothing.
      .delay("KL1304", "3m")
      // Long delay, but pier F and 8 hours ahead: no rule wants it.
      .delay("KL1307", "70m");
    tl.at("3s").delay("KL1304", "8m").expect(pierD("KL1304").saying("(8 min late)"));
    tl.at("4s")
      .cancel("KL1308")
      .expect(duty("KL1308").saying("now cancelled"))
      .expect(dutyMail("KL1308").saying("now cancelled"))
      .expect(slack("duty-pager").about("KL1308").saying("now cancelled"));
    tl.at("5s")
      .delay("KL1304", "65m")
      .expect(pierD("KL1304").saying("(65 min late)"))
      .expect(slack("long-delays-klm").about("KL1304").saying("(65 min late)"));
    tl.at("6s")
      // Gate closing at pier E, after the move: no longer pier D's.
      .states("KL1301", "GCL")
      .uncancel("KL1308")
      .expect(duty("KL1308").saying("no longer cancelled"))
      .expect(dutyMail("KL1308").saying("no longer cancelled"));
    // Transavia 70 minutes late: pier D hears it, the KLM rule does not.
    tl.at("7.5s").delay("HV5306", "70m").expect(pierD("HV5306").saying("(70 min late)"));
    // Cancelled again within the pager's cool-down: the duty manager hears it, the pager not.
    tl.at("8.5s")
      .cancel("KL1308")
      .expect(duty("KL1308").saying("now cancelled"))
      .expect(dutyMail("KL1308").saying("now cancelled"));
    tl.at("9.5s")
      .divert("KL1312")
      .expect(duty("KL1312").saying("now diverted"))
      .expect(dutyMail("KL1312").saying("now diverted"));

    tl.nothing(pierD("KL1301").saying("gate closing"));
    tl.nothing(pierD("KL1302"));
    tl.nothing(pierD("KL1305"));
    tl.nothing(pierD("KL1311"));
    tl.nothing(pierD("KL1304").saying("(3 min late)"));
    tl.nothing(pierD("KL1307"));
    tl.nothing(slack("long-delays-klm").about("HV5306"));
    tl.nothing(slack("long-delays-klm").about("KL1307"));
    tl.nothing(slack("duty-pager").saying("no longer"));
    await tl.run();
  }, 90_000);
});
