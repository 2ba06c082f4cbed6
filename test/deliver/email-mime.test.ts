import fc from "fast-check";
import { type ParsedMail, simpleParser } from "mailparser";
import MailComposer from "nodemailer/lib/mail-composer";
import { describe, expect, it } from "vitest";
import type { EmailMessage } from "../../src/deliver/email-message.js";
import { emailMessage } from "../../src/deliver/email-message.js";
import { emailMime } from "../../src/deliver/email-mime.js";
import { alert, emailChannel, FROM, notificationOf, ruleWith, ZONE } from "./email-fixtures.js";

const DATE = new Date("2026-11-21T09:25:00Z");

/** A real message of the email channel, with a one-click unsubscribe URL. */
function realMessage(): EmailMessage {
  const channel = emailChannel(["anna@example.com"], {
    unsubscribeUrl: "https://flightwatch.example/unsubscribe?to={recipient}",
  });
  return emailMessage(
    notificationOf(alert("a1"), channel),
    channel,
    ruleWith(channel),
    ZONE,
    FROM,
    "anna@example.com",
  );
}

/** What a mail client reads of a message: the fields flightwatch sets, decoded. */
function read(mail: ParsedMail) {
  const header = (key: string) => {
    const value = mail.headers.get(key);
    return typeof value === "string" ? value : JSON.stringify(value);
  };
  return {
    from: mail.from?.value,
    to: Array.isArray(mail.to) ? mail.to.flatMap((t) => t.value) : mail.to?.value,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    messageId: mail.messageId,
    inReplyTo: mail.inReplyTo,
    references: mail.references,
    date: mail.date?.toISOString(),
    autoSubmitted: header("auto-submitted"),
    notification: header("x-flightwatch-notification"),
    rule: header("x-flightwatch-rule"),
    flight: header("x-flightwatch-flight"),
    list: header("list-unsubscribe"),
    listPost: header("list-unsubscribe-post"),
  };
}

/** The same message as nodemailer's own composer builds it. */
async function composed(message: EmailMessage): Promise<string> {
  const built = await new MailComposer({ ...message, date: DATE }).compile().build();
  return built.toString("utf8");
}

/** Text such as templates and upstream values put in a message. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("a", "Z", " ", ".", "=", "\t", "\n", "\r\n", "é", "→", "✈", "😀", "From ", "-"),
    fc.string({ minLength: 1, maxLength: 3 }),
  ),
  maxLength: 400,
});

describe("email MIME", () => {
  it("reads in a mail client exactly as nodemailer's own composition of the message", async () => {
    const message = realMessage();
    const ours = await simpleParser(emailMime(message, DATE));
    const theirs = await simpleParser(await composed(message));
    expect(read(ours)).toEqual(read(theirs));
    expect(ours.subject).toBe("KL1001 2026-11-21: gate D7 → D9");
    expect(ours.text).toBe(message.text);
    expect(ours.html).toBe(message.html);
  });

  it("keeps any subject, sender name, text and HTML through encoding, within 76-character CRLF lines", async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        text,
        text,
        // Display names as EMAIL_FROM holds them.
        fc.string({
          unit: fc.constantFrom("A", "z", " ", ".", "'", "-", "ü", "ß", "✈", "é"),
          maxLength: 40,
        }),
        fc.nat({ max: 3000 }),
        async (subject, body, html, name, longLine) => {
          const base = realMessage();
          const message: EmailMessage = {
            ...base,
            from: `${name} <alerts@flightwatch.example>`,
            // As email-message.ts makes them: one line, bounded.
            subject: subject.replace(/\s+/g, " ").trim(),
            text: `${body}\n${"x".repeat(longLine)}\n`,
            html: `<p>${html}</p>`,
            headers: { ...base.headers, "X-Flightwatch-Flight": subject.slice(0, 200) },
          };
          const raw = emailMime(message, DATE);
          for (const line of raw.split("\r\n")) {
            expect(line.length).toBeLessThanOrEqual(76);
            expect(line).not.toMatch(/[\r\n]/);
          }
          expect(raw).toMatch(/^[\x20-\x7e\t\r\n]*$/); // 7-bit: any relay takes it
          const ours = read(await simpleParser(raw));
          const theirs = read(await simpleParser(await composed(message)));
          // nodemailer writes a long text line as quoted-printable or base64: both decode alike.
          expect(ours).toEqual(theirs);
          // Line ends are CRLF on the wire; a client reads them as line breaks.
          expect(ours.text).toBe(message.text.replace(/\r\n?/g, "\n"));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives the same text for the same message and date: a resend is the same message", () => {
    const message = realMessage();
    expect(emailMime(message, DATE)).toBe(emailMime(message, DATE));
    expect(emailMime(message, DATE)).toContain("Date: Sat, 21 Nov 2026 09:25:00 +0000\r\n");
  });

  it("ends the message after its two parts, whatever the parts say", async () => {
    const base = realMessage();
    // Text that looks like a part boundary of the message itself.
    const boundary = /boundary="([^"]+)"/.exec(emailMime(base, DATE))?.[1] as string;
    const message = { ...base, text: `before\n--${boundary}--\nafter\n` };
    const mail = await simpleParser(emailMime(message, DATE));
    expect(mail.text).toBe(message.text);
    expect(mail.html).toBe(base.html);
  });
});
