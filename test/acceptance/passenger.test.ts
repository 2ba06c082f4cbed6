/**
 * A passenger following one flight by email, as rules/passenger.yaml does: gate
 * changes close to departure, delays once they cross 15 minutes and each further
 * 15, boarding, cancellation and its withdrawal — asked for by a codeshare number on
 * the ticket. Another passenger's flight is still more than 4 hours away: its gate
 * change is not news yet, its cancellation is.
 */
import { describe, it } from "vitest";
import { departure } from "./cast.js";
import { email, slack, webhook } from "./deliveries.js";
import { timeline } from "./timeline.js";

const RULES = `
rules:
  - id: anna
    labels: { passenger: anna }
    flights: { flight: DL9870 }        # the codeshare number on Anna's ticket
    changes:
      - { kind: gate, within: 4h }
      - { kind: departure_time, delay_at_least: 15m, shift_at_least: 15m }
      - { kind: state, states: [BRD] }
      - cancelled
      - uncancelled
    channels:
      - type: email
        to: [anna@example.com]
        subject: "{flight}: {changes}"
  - id: carl
    flights: { flight: KL1872 }
    changes:
      - { kind: gate, within: 4h }
      - cancelled
    channels: [{ type: email, to: [carl@example.com] }]
  - id: bob
    flights: { flight: KL1871 }
    channels: [{ type: webhook, url: "\${WEBHOOK_URL}", secret: "\${WEBHOOK_SECRET}" }]
`;

describe("acceptance: a passenger rule", () => {
  it("mails Anna once per change that matters to her, and nothing about other flights", async () => {
    const tl = timeline({
      name: "passenger",
      cast: [
        departure("KL1870", { gate: "D4", in: "2h", codeshares: ["DL9870", "AF7870"] }),
        departure("KL1871", { gate: "D5", in: "3h" }),
        departure("KL1872", { gate: "D2", in: "5h" }),
      ],
      rules: RULES,
    });
    tl.at("1s")
      .gate("KL1870", "D7")
      .expect(email("anna").about("KL1870").to("anna@example.com").saying("D7"));
    // Carl's flight leaves in 5 hours: a gate change is not news yet.
    tl.at("2s").gate("KL1872", "D3");
    // 10 minutes late: below the 15-minute threshold, nothing.
    tl.at("3s").delay("KL1870", "10m");
    tl.at("5s")
      .delay("KL1870", "20m")
      .expect(
        email("anna")
          .about("KL1870")
          .saying(/delay|depart/i),
      );
    // Another flight: Bob's webhook, not Anna's mail.
    tl.at("7s")
      .gate("KL1871", "E2")
      .expect(webhook("bob").about("KL1871").change({ field: "gate", new: "E2" }))
      // Carl's flight cancelled: news however far ahead it is.
      .cancel("KL1872")
      .expect(email("carl").about("KL1872").to("carl@example.com").saying("now cancelled"));
    tl.at("9s")
      .states("KL1870", "BRD")
      .expect(
        email("anna")
          .about("KL1870")
          .saying(/boarding/i),
      );
    // Cancelled, then the cancellation withdrawn: Anna hears both.
    tl.at("10.5s").cancel("KL1870").expect(email("anna").about("KL1870").saying("now cancelled"));
    tl.at("12s")
      .uncancel("KL1870")
      .expect(email("anna").about("KL1870").saying("no longer cancelled"));
    tl.nothing(slack("anna"));
    tl.nothing(email("carl").saying("gate D2 → D3"));
    await tl.run();
  }, 90_000);
});
