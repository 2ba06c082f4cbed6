/**
 * A passenger following one flight by email, as rules/passenger.yaml does: gate
 * changes close to departure, delays once they cross 15 minutes and each further
 * 15, boarding, cancellation and its withdrawal — asked for by a codeshare number on
 * the ticket, and read by the passenger: the mail names the flight by that number,
 * boarding by its gate, a cancelled flight as cancelled, and never the rule's id.
 * Another passenger's flight is still more than 4 hours away: its gate change is not
 * news yet, its cancellation is — to both people on that booking, each in a mail of
 * their own. A gate the upstream sends 200,000 characters long makes a short mail.
 */
import { expect as assert, describe, it } from "vitest";
import { departure } from "./cast.js";
import { email, slack, webhook } from "./deliveries.js";
import { timeline } from "./timeline.js";

/** Anna's rule: an id made by a booking app, which is nothing for Anna to read. */
const ANNA = "pax-anna-7q2lm";
const LONG_GATE = "G".repeat(200_000);

const RULES = `
rules:
  - id: ${ANNA}
    description: Your KL1870 to the sun
    labels: { passenger: anna }
    flights: { flight: DL9870 }        # the codeshare number on Anna's ticket
    changes:
      - { kind: gate, within: 4h }
      - { kind: departure_time, delay_at_least: 15m, shift_at_least: 15m }
      - { kind: state, states: [BRD] } # boarding begins (not when it ends)
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
    channels:
      - type: email
        to: [carl@example.com, dana@example.com]
        unsubscribe_url: "https://app.example.com/unsubscribe?who={recipient}"
  - id: bob
    flights: { flight: KL1871 }
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
  - id: erin
    flights: { flight: KL1873 }
    changes: [gate]
    channels: [{ type: email, to: [erin@example.com] }]
`;

describe("acceptance: a passenger rule", () => {
  it("mails Anna once per change that matters to her, in words she understands, and nothing about other flights", async () => {
    const tl = timeline({
      name: "passenger",
      cast: [
        departure("KL1870", { gate: "D4", in: "2h", codeshares: ["DL9870", "AF7870"] }),
        departure("KL1871", { gate: "D5", in: "3h" }),
        departure("KL1872", { gate: "D2", in: "5h" }),
        departure("KL1873", { gate: "D6", in: "1h" }),
      ],
      rules: RULES,
    });
    const anna = email(ANNA).about("KL1870").to("anna@example.com");
    // Her ticket's number first, in the subject and in the text.
    tl.at("1s")
      .gate("KL1870", "D7")
      .expect(anna.saying("DL9870: gate D4 → D7").saying("DL9870 (KL1870, AF7870) to "));
    // Carl's flight leaves in 5 hours: a gate change is not news yet.
    tl.at("2s").gate("KL1872", "D3");
    // 10 minutes late: below the 15-minute threshold, nothing.
    tl.at("3s").delay("KL1870", "10m");
    tl.at("5s")
      .delay("KL1870", "20m")
      .expect(anna.saying(/DL9870: estimated departure .* \(20 min late\)/));
    // Another flight: Bob's webhook, not Anna's mail.
    tl.at("7s")
      .gate("KL1871", "E2")
      .expect(webhook("bob").about("KL1871").change({ field: "gate", new: "E2" }))
      // Carl's flight cancelled: news however far ahead it is, to each of the booking's
      // two people in a mail of their own.
      .cancel("KL1872")
      .expect(email("carl").about("KL1872").to("carl@example.com").saying("now cancelled"))
      .expect(email("carl").about("KL1872").to("dana@example.com").saying("now cancelled"))
      // A gate the upstream sends 200,000 characters long.
      .update("KL1873", { gate: LONG_GATE }, "gate KL1873 → G×200,000")
      .expect(
        email("erin")
          .about("KL1873")
          .saying(/gate D6 → G{99}…/),
      );
    tl.at("9s").states("KL1870", "BRD").expect(anna.saying("DL9870: now boarding at gate D7"));
    // Cancelled while boarding — the upstream replaces ["BRD"] with ["CNX"]: Anna hears
    // of the cancellation, as a cancellation, and not that boarding stopped.
    tl.at("10.5s")
      .states("KL1870", "CNX")
      .expect(
        anna
          .saying("DL9870: now cancelled")
          .saying(/DL9870 \(KL1870, AF7870\) to \w+, was to depart \w{3} \d+ \w+ \d\d:\d\d: /),
      );
    // The cancellation withdrawn (["CNX"] → ["SCH"]; an empty list would be "unknown",
    // no change): Anna hears that too, and the flight departs again.
    tl.at("12s")
      .states("KL1870", "SCH")
      .expect(anna.saying("no longer cancelled").saying(/to \w+, departs /));
    tl.nothing(slack(ANNA));
    tl.nothing(email(ANNA).saying("no longer boarding"));
    // The rule's id is for support (a header), never in what Anna reads.
    tl.nothing(email(ANNA).saying(ANNA));
    tl.nothing(email("carl").saying("gate D2 → D3"));
    const { deliveries } = await tl.run();

    const mails = deliveries.filter((d) => d.channel === "email");
    // One message per recipient: nobody's message goes (or shows, see email-sender.test) to another.
    for (const mail of mails) assert(mail.to).toHaveLength(1);
    const carl = mails.filter((d) => d.ruleId === "carl");
    assert(new Set(carl.map((d) => d.id)).size).toBe(2);
    // Each with an unsubscribe link of their own.
    assert(carl.find((d) => d.to[0] === "dana@example.com")?.text).toContain(
      "Unsubscribe: https://app.example.com/unsubscribe?who=dana%40example.com",
    );
    // Subject and body of the long gate's mail: a few KB, not a megabyte.
    const erin = mails.find((d) => d.ruleId === "erin");
    assert(erin?.text.length).toBeLessThan(10_000);
  }, 90_000);
});
