import { describe, expect, it } from "vitest";
import {
  DEFAULT_SUBJECT,
  domainOf,
  EMAIL_SUBJECT_CHARS,
  EMAIL_VALUE_CHARS,
  emailMessage,
  escapeHtml,
} from "../../src/deliver/email-message.js";
import type { Notification } from "../../src/deliver/notification.js";
import type { EmailChannelSpec } from "../../src/rules/rule.js";
import { alertOf } from "../support/alert-builder.js";
import {
  alert,
  emailChannel,
  FROM,
  flight,
  gateChange,
  notificationOf,
  ruleWith,
  ZONE,
} from "./email-fixtures.js";

/** The message of alert `a` through `channel` (rule r1). */
/** The message of alert `a` through `channel` (rule r1) to `recipient` (the channel's first). */
function render(
  a = alert("a1"),
  channel: EmailChannelSpec = emailChannel(),
  recipient = channel.to[0] as string,
) {
  return renderNotification(notificationOf(a, channel), channel, recipient);
}

/** The message of a notification through `channel` (rule r1) to `recipient`. */
function renderNotification(
  n: Notification,
  channel: EmailChannelSpec = emailChannel(),
  recipient = channel.to[0] as string,
) {
  return emailMessage(n, channel, ruleWith(channel), ZONE, FROM, recipient);
}

describe("email message", () => {
  it("has a default subject naming flight, date and change", () => {
    expect(DEFAULT_SUBJECT).toBe("{flight} {date}: {changes}");
    expect(render().subject).toBe("KL1001 2026-11-21: gate D7 → D9");
  });

  it("says so when it is a test or a replay: subject and header", () => {
    const channel = emailChannel();
    const plain = render();
    expect(plain.headers["X-Flightwatch-Test"]).toBeUndefined();
    expect(plain.headers["X-Flightwatch-Replay-Of"]).toBeUndefined();
    const sample = renderNotification(notificationOf({ ...alert("a1"), test: true }, channel));
    expect(sample.subject).toBe("TEST — KL1001 2026-11-21: gate D7 → D9");
    expect(sample.headers["X-Flightwatch-Test"]).toBe("true");
    expect(sample.text).toMatch(
      /^TEST — no flight changed; a sample sent by `flightwatch channels test`: /,
    );
    const replay = renderNotification({
      ...notificationOf(alert("a1"), channel),
      id: "msg_new",
      replayOf: "msg_old",
    });
    expect(replay.subject).toBe("Replay — KL1001 2026-11-21: gate D7 → D9");
    expect(replay.headers["X-Flightwatch-Replay-Of"]).toBe("msg_old");
  });

  it("names the flight by the codeshare number the rule matched it by, subject and body", () => {
    const channel = emailChannel();
    const r = { ...ruleWith(channel), flights: { flights: ["DL9341"] } };
    const message = emailMessage(
      notificationOf(alert("a1"), channel),
      channel,
      r,
      ZONE,
      FROM,
      "anna@example.com",
    );
    expect(message.subject).toBe("DL9341 2026-11-21: gate D7 → D9");
    expect(message.text.split("\n")[0]).toBe(
      "DL9341 (KL1001) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9",
    );
    expect(message.html).toContain("DL9341 (KL1001) to WAW");
    // Support still finds the physical flight under its operating number.
    expect(message.headers["X-Flightwatch-Flight"]).toBe("D:2026-11-21:KL1001");
  });

  it("renders the channel's subject and text templates", () => {
    const channel = emailChannel(["anna@example.com"], {
      subject: "Your flight {flight}\non {date}",
      template: "Hello, {label.booking}: {changes}",
    });
    const message = render(alert("a1"), channel);
    expect(message.subject).toBe("Your flight KL1001 on 2026-11-21");
    expect(message.text.split("\n")[0]).toBe("Hello, X7Q2LM: gate D7 → D9");
  });

  it("has a text part with the summary and each change old → new", () => {
    const a = alert("a1", [
      gateChange("D7", "D9"),
      { kind: "state", field: "publicFlightState", action: "added", state: "BRD", eventIds: [] },
    ]);
    expect(render(a).text).toBe(
      [
        "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9; now boarding at gate D9",
        "",
        "Changes:",
        "- gate D7 → D9",
        "- now boarding at gate D9",
        "",
        "Anna's flight",
        "booking: X7Q2LM",
        "",
      ].join("\n"),
    );
  });

  it("shows people the rule's description, never its internal id (kept in a header for support)", () => {
    const channel = emailChannel();
    const id = "pax-7f3a9c-x7q2lm";
    const message = emailMessage(
      notificationOf(alert("a1", undefined, flight(), id), channel),
      channel,
      ruleWith(channel, id),
      ZONE,
      FROM,
      "anna@example.com",
    );
    expect(message.subject).not.toContain(id);
    expect(message.text).not.toContain(id);
    expect(message.html).not.toContain(id);
    expect(message.text).toContain("\nAnna's flight\n");
    expect(message.html).toContain("Anna's flight".replace("'", "&#39;"));
    expect(message.headers["X-Flightwatch-Rule"]).toBe(id);

    // A rule without a description, an alert without labels: no footer at all.
    const bare = { ...ruleWith(channel, id), description: undefined };
    const plain = emailMessage(
      notificationOf(alertOf({ ...alert("a1"), labels: {} }), channel),
      channel,
      bare,
      ZONE,
      FROM,
      "anna@example.com",
    );
    expect(plain.text).toBe(
      "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9\n\nChanges:\n- gate D7 → D9\n",
    );
    expect(plain.html).not.toContain("font-size: small");
  });

  it("echoes the labels (a booking reference) at the foot, for the people who read it", () => {
    const labelled = alertOf({ ...alert("a1"), labels: { booking: "X7Q2LM", seat: "<12A>" } });
    const message = render(labelled);
    expect(message.text).toContain("\nAnna's flight\nbooking: X7Q2LM, seat: <12A>\n");
    expect(message.html).toContain("Anna&#39;s flight<br>\nbooking: X7Q2LM, seat: &lt;12A&gt;");
  });

  it("cuts long values from the upstream in subject and body (a 200,000-character gate)", () => {
    const huge = "G".repeat(200_000);
    const a = alertOf({
      id: "a1",
      ruleId: "r1",
      flight: flight({ flightNames: ["KL1001", `DL${huge}`], scheduleDate: `2026-11-21${huge}` }),
      current: { route: [huge], gate: huge },
      changes: [
        { ...gateChange(huge, "D9") },
        { kind: "state", field: "publicFlightState", action: "added", state: "BRD", eventIds: [] },
        { kind: "state", field: "publicFlightState", action: "added", state: huge, eventIds: [] },
      ],
    });
    for (const channel of [
      emailChannel(),
      emailChannel(["anna@example.com"], {
        subject: "{flights} {route} {date}: {changes}",
        template: "{summary} {flight}",
      }),
    ]) {
      const message = render(a, channel);
      expect(message.subject.length).toBeLessThanOrEqual(EMAIL_SUBJECT_CHARS);
      expect(message.subject).toMatch(/…$/);
      expect(message.text.length).toBeLessThan(2_000);
      expect(message.html.length).toBeLessThan(3_000);
      // Each value is cut on its own: the new gate still shows.
      expect(message.text).toContain(`- gate ${"G".repeat(EMAIL_VALUE_CHARS - 1)}… → D9`);
    }
    expect(render(a).headers["X-Flightwatch-Flight"]?.length).toBeLessThanOrEqual(
      EMAIL_SUBJECT_CHARS,
    );
  });

  it("escapes flight data in the HTML part (a <script> in a gate)", () => {
    const a = alert("a1", [gateChange("D7", `<script>alert("x")</script>&'`)]);
    const channel = emailChannel(["anna@example.com"], { template: "<b>{flight}</b> {changes}" });
    const { html, text } = render(a, channel);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    expect(html).toContain("&lt;b&gt;KL1001&lt;/b&gt;");
    // The text part is plain text: shown as written.
    expect(text).toContain(`<script>alert("x")</script>`);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
    );
  });

  it("has a Message-ID from the notification id, the recipient and the sender's domain, the same on a resend", () => {
    const first = render();
    const id = notificationOf(alert("a1"), emailChannel()).id;
    expect(first.messageId).toMatch(new RegExp(`^<${id}\\.[0-9a-f]{12}@flightwatch\\.example>$`));
    expect(first.headers["X-Flightwatch-Notification"]).toBe(id);
    expect(render().messageId).toBe(first.messageId);
    expect(render(alert("a2")).messageId).not.toBe(first.messageId);
    // Another recipient of the same notification: its own id, the same notification's.
    const channel = emailChannel(["anna@example.com", "ben@example.com"]);
    const ben = render(alert("a1"), channel, "ben@example.com");
    expect(ben.messageId).not.toBe(first.messageId);
    expect(ben.messageId.startsWith(`<${id}.`)).toBe(true);
    expect(ben.headers["X-Flightwatch-Notification"]).toBe(id);
    expect(render(alert("a1"), channel, "Ben@Example.com").messageId).toBe(ben.messageId);
  });

  it("threads messages about one flight of one rule together, and no others", () => {
    const one = render(alert("a1", [gateChange("D7", "D9")]));
    const two = render(alert("a2", [gateChange("D9", "E2")]));
    expect(one.messageId).not.toBe(two.messageId);
    expect(one.inReplyTo).toMatch(/^<thread-[0-9a-f]{32}@flightwatch\.example>$/);
    expect(two.inReplyTo).toBe(one.inReplyTo);
    expect(two.references).toBe(one.references);
    expect(one.references).toBe(one.inReplyTo);

    const otherFlight = render(alert("a3", undefined, flight({ key: "D:2026-11-21:KL1002" })));
    expect(otherFlight.inReplyTo).not.toBe(one.inReplyTo);
    const otherRule = render(alert("a4", undefined, flight(), "r2"));
    expect(otherRule.inReplyTo).not.toBe(one.inReplyTo);
  });

  it("has List-Unsubscribe headers (RFC 8058) only when the channel gives a URL", () => {
    expect(render().headers).not.toHaveProperty("List-Unsubscribe");
    expect(render().headers).not.toHaveProperty("List-Unsubscribe-Post");
    expect(render().html).not.toContain("Unsubscribe");

    const channel = emailChannel(["anna@example.com"], {
      unsubscribeUrl: "https://example.com/unsub?u=anna&r=r1",
    });
    const message = render(alert("a1"), channel);
    expect(message.headers["List-Unsubscribe"]).toBe("<https://example.com/unsub?u=anna&r=r1>");
    expect(message.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(message.html).toContain('href="https://example.com/unsub?u=anna&amp;r=r1"');
    expect(message.text).toContain("Unsubscribe: https://example.com/unsub?u=anna&r=r1");
  });

  it("gives each recipient an unsubscribe link of their own with {recipient}", () => {
    const channel = emailChannel(["anna@example.com", "ben+kl@example.com"], {
      unsubscribeUrl: "https://example.com/unsub/{recipient}?list=kl1001&who={recipient}",
    });
    const anna = render(alert("a1"), channel, "anna@example.com");
    const ben = render(alert("a1"), channel, "ben+kl@example.com");
    expect(anna.headers["List-Unsubscribe"]).toBe(
      "<https://example.com/unsub/anna%40example.com?list=kl1001&who=anna%40example.com>",
    );
    expect(ben.headers["List-Unsubscribe"]).toBe(
      "<https://example.com/unsub/ben%2Bkl%40example.com?list=kl1001&who=ben%2Bkl%40example.com>",
    );
    expect(ben.text).toContain("Unsubscribe: https://example.com/unsub/ben%2Bkl%40example.com?");
    expect(ben.html).not.toContain("anna");
  });

  it("addresses its one recipient only, never the channel's others, and marks itself auto-generated", () => {
    const channel = emailChannel(["a@example.com", "b@example.com"]);
    const message = render(alert("a1"), channel, "b@example.com");
    expect(message.to).toBe("b@example.com");
    expect(JSON.stringify(message)).not.toContain("a@example.com");
    expect(message.from).toBe(FROM);
    expect(message.headers["Auto-Submitted"]).toBe("auto-generated");
    expect(message.headers["X-Flightwatch-Rule"]).toBe("r1");
  });

  it("takes the domain of a sender in either form", () => {
    expect(domainOf("Flightwatch <alerts@example.com>")).toBe("example.com");
    expect(domainOf("alerts@mail.example.com")).toBe("mail.example.com");
    expect(domainOf("no address")).toBe("flightwatch.invalid");
  });
});
