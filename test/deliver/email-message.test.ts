import { describe, expect, it } from "vitest";
import {
  DEFAULT_SUBJECT,
  domainOf,
  emailMessage,
  escapeHtml,
} from "../../src/deliver/email-message.js";
import type { EmailChannelSpec } from "../../src/rules/rule.js";
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
function render(a = alert("a1"), channel: EmailChannelSpec = emailChannel()) {
  return emailMessage(notificationOf(a, channel), channel, ruleWith(channel), ZONE, FROM);
}

describe("email message", () => {
  it("has a default subject naming flight, date and change", () => {
    expect(DEFAULT_SUBJECT).toBe("{flight} {date}: {changes}");
    expect(render().subject).toBe("KL1001 2026-11-21: gate D7 → D9");
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
        "KL1001 (DL9341) to WAW, departs Sat 21 Nov 10:25: gate D7 → D9; now boarding",
        "",
        "Changes:",
        "- gate D7 → D9",
        "- now boarding",
        "",
        "Rule r1 — Anna's flight",
        "",
      ].join("\n"),
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

  it("has a Message-ID from the notification id and the sender's domain, the same on a resend", () => {
    const first = render();
    expect(first.messageId).toMatch(/^<msg_[a-z2-7]{26}@flightwatch\.example>$/);
    expect(render().messageId).toBe(first.messageId);
    expect(render(alert("a2")).messageId).not.toBe(first.messageId);
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

  it("addresses the whole channel and marks itself auto-generated", () => {
    const message = render(alert("a1"), emailChannel(["a@example.com", "b@example.com"]));
    expect(message.to).toEqual(["a@example.com", "b@example.com"]);
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
