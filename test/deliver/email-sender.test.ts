import { afterEach, describe, expect, it } from "vitest";
import type { SendContext } from "../../src/deliver/channel-sender.js";
import { EmailSender } from "../../src/deliver/email-sender.js";
import { type EmailSettings, readEmailSettings } from "../../src/deliver/email-settings.js";
import type { EmailChannelSpec } from "../../src/rules/rule.js";
import {
  type SmtpReceiver,
  type SmtpReceiverOptions,
  startSmtpReceiver,
} from "../support/smtp-receiver.js";
import { alert, emailChannel, FROM, notificationOf, ruleWith, ZONE } from "./email-fixtures.js";

const A = "anna@example.com";
const B = "bob@example.com";
const C = "carla@example.com";

let receiver: SmtpReceiver | undefined;
let sender: EmailSender | undefined;

afterEach(async () => {
  await sender?.close();
  await receiver?.close();
  sender = undefined;
  receiver = undefined;
});

/** A receiver and a sender pointed at it (with `credentials` in SMTP_URL when given). */
async function setUp(
  options: SmtpReceiverOptions = {},
  credentials?: { user: string; pass: string },
): Promise<{ receiver: SmtpReceiver; sender: EmailSender }> {
  receiver = await startSmtpReceiver(options);
  sender = new EmailSender(settingsFor(receiver.url(credentials)));
  return { receiver, sender };
}

function settingsFor(url: string): EmailSettings {
  const settings = readEmailSettings({ SMTP_URL: url, EMAIL_FROM: FROM });
  if (settings === undefined) throw new Error("no settings");
  return settings;
}

/** One attempt of the notification of alert a1 through `channel`. */
function send(s: EmailSender, channel: EmailChannelSpec, recipients?: string[], attempt = 1) {
  const context: SendContext = { rule: ruleWith(channel), zone: ZONE, now: () => 0, attempt };
  if (recipients) context.recipients = recipients;
  return s.send(notificationOf(alert("a1"), channel), channel, context);
}

describe("email sender", () => {
  it("delivers one message with text and HTML parts and the threading headers", async () => {
    const { receiver, sender } = await setUp();
    const outcome = await send(sender, emailChannel([A, B]));
    expect(outcome).toEqual({ status: "delivered", code: 250 });

    expect(receiver.messages).toHaveLength(1);
    const mail = receiver.messages[0]!;
    expect(mail.from).toBe("alerts@flightwatch.example");
    expect(mail.to).toEqual([A, B]);
    expect(mail.headers.subject).toBe("KL1001 2026-11-21: gate D7 → D9");
    expect(mail.headers.from).toBe(FROM);
    expect(mail.headers.to).toBe(`${A}, ${B}`);
    expect(mail.headers["message-id"]).toMatch(/^<msg_[a-z2-7]{26}@flightwatch\.example>$/);
    expect(mail.headers["in-reply-to"]).toMatch(/^<thread-[0-9a-f]{32}@flightwatch\.example>$/);
    expect(mail.headers.references).toBe(mail.headers["in-reply-to"]);
    expect(mail.headers["auto-submitted"]).toBe("auto-generated");
    expect(mail.headers["content-type"]).toMatch(/^multipart\/alternative;/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8/);
    expect(mail.raw).toMatch(/Content-Type: text\/html; charset=utf-8/);
    expect(mail.user).toBeUndefined();
  });

  it("logs in with the credentials of SMTP_URL (percent-decoded)", async () => {
    const auth = { user: "alerts@flightwatch.example", pass: "p:ss/w@rd" };
    const { receiver, sender } = await setUp({ auth }, auth);
    expect(await send(sender, emailChannel([A]))).toMatchObject({ status: "delivered" });
    expect(receiver.messages[0]?.user).toBe(auth.user);
  });

  it("fails for good when the server refuses the credentials (535)", async () => {
    receiver = await startSmtpReceiver({ auth: { user: "u", pass: "right" } });
    sender = new EmailSender(settingsFor(receiver.url({ user: "u", pass: "wrong" })));
    const outcome = await send(sender, emailChannel([A]));
    expect(outcome).toMatchObject({ status: "failed", reason: "smtp_permanent", code: 535 });
    expect(JSON.stringify(outcome)).not.toContain("wrong");
    expect(receiver.messages).toHaveLength(0);
  });

  it("retries only the recipient answered 4xx, then delivers the same message to it", async () => {
    const { receiver, sender } = await setUp({
      rcpt: (address, attempt) => (address === B && attempt === 1 ? { code: 451 } : undefined),
    });
    const channel = emailChannel([A, B]);
    const first = await send(sender, channel);
    expect(first).toMatchObject({
      status: "retry",
      reason: "smtp_transient",
      code: 451,
      retryRecipients: [B],
    });
    expect(first).not.toHaveProperty("refused");

    const second = await send(sender, channel, [B], 2);
    expect(second).toMatchObject({ status: "delivered" });
    expect(receiver.messages.map((m) => m.to)).toEqual([[A], [B]]);
    const [one, two] = receiver.messages;
    expect(two?.headers["message-id"]).toBe(one?.headers["message-id"]);
    expect(two?.headers.to).toBe(`${A}, ${B}`);
    expect(receiver.rcptCount(A)).toBe(1);
  });

  it("refuses a recipient answered 5xx for good while delivering to the others", async () => {
    const { receiver } = await setUp({
      rcpt: (address) =>
        address === B
          ? { code: 550, message: "5.1.1 No such user" }
          : address === C
            ? { code: 452 }
            : undefined,
    });
    const outcome = await send(sender!, emailChannel([A, B, C]));
    expect(outcome).toMatchObject({
      status: "retry",
      reason: "smtp_transient",
      retryRecipients: [C],
      refused: [{ recipient: B, reason: expect.stringContaining("550 5.1.1 No such user") }],
    });
    expect(receiver.messages[0]?.to).toEqual([A]);

    const onlyRefused = await send(sender!, emailChannel([A, B]));
    expect(onlyRefused).toMatchObject({ status: "delivered", refused: [{ recipient: B }] });
  });

  it("fails when every recipient is refused for good", async () => {
    const { receiver, sender } = await setUp({ rcpt: () => ({ code: 550 }) });
    const outcome = await send(sender, emailChannel([A, B]));
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "smtp_permanent",
      refused: [{ recipient: A }, { recipient: B }],
    });
    expect(receiver.messages).toHaveLength(0);
  });

  it("retries the deferred recipients when all are rejected, some for good", async () => {
    const { sender } = await setUp({
      rcpt: (address) => (address === A ? { code: 550 } : { code: 450 }),
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "retry",
      reason: "smtp_transient",
      retryRecipients: [B],
      refused: [{ recipient: A }],
    });
  });

  it("fails for good on a 5xx to the message, and retries everyone on a 4xx", async () => {
    const { receiver, sender } = await setUp({
      data: (_to, attempt) =>
        attempt === 1 ? { code: 554, message: "5.6.0 Rejected" } : { code: 451 },
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "failed",
      reason: "smtp_permanent",
      code: 554,
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "retry",
      reason: "smtp_transient",
      code: 451,
      retryRecipients: [A, B],
    });
    expect(receiver.messages).toHaveLength(0);
  });

  it("retries every remaining recipient when the server is down", async () => {
    const down = await startSmtpReceiver();
    const url = down.url();
    await down.close();
    sender = new EmailSender(settingsFor(url));
    expect(await send(sender, emailChannel([A, B, C]), [B, C], 2)).toMatchObject({
      status: "retry",
      reason: "connection",
      retryRecipients: [B, C],
    });
  });

  it("fails every send with not_configured without SMTP_URL", async () => {
    sender = new EmailSender(readEmailSettings({}));
    const outcome = await send(sender, emailChannel([A]));
    expect(outcome).toMatchObject({ status: "failed", reason: "not_configured" });
    expect(outcome.status === "failed" && outcome.detail).toContain("SMTP_URL");
  });
});
