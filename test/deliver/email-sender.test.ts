import { afterEach, describe, expect, it } from "vitest";
import { readEmailSettings } from "../../src/config/email-settings.js";
import type { SendContext } from "../../src/deliver/channel-sender.js";
import { emailMessageId } from "../../src/deliver/email-message.js";
import { EmailSender } from "../../src/deliver/email-sender.js";
import { type EmailSettings, plaintextAuthWarning } from "../../src/deliver/email-settings.js";
import type { EmailChannelSpec } from "../../src/rules/rule.js";
import {
  type SmtpReceiver,
  type SmtpReceiverOptions,
  startSmtpReceiver,
  TEST_TLS,
} from "../support/smtp-receiver.js";
import {
  alert,
  emailChannel,
  FROM,
  gateChange,
  notificationOf,
  ruleWith,
  ZONE,
} from "./email-fixtures.js";

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

/**
 * A receiver and a sender pointed at it (with `credentials` in SMTP_URL when given),
 * trusting the receiver's test certificate when it offers STARTTLS.
 */
async function setUp(
  options: SmtpReceiverOptions = {},
  credentials?: { user: string; pass: string },
  env: Record<string, string> = {},
): Promise<{ receiver: SmtpReceiver; sender: EmailSender }> {
  receiver = await startSmtpReceiver(options);
  sender = new EmailSender(settingsFor(receiver.url(credentials), env), {
    tls: { ca: TEST_TLS.cert },
  });
  return { receiver, sender };
}

function settingsFor(url: string, env: Record<string, string> = {}): EmailSettings {
  const settings = readEmailSettings({ SMTP_URL: url, EMAIL_FROM: FROM, ...env });
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
    const outcome = await send(sender, emailChannel([A]));
    expect(outcome).toEqual({ status: "delivered", code: 250 });

    expect(receiver.messages).toHaveLength(1);
    const mail = receiver.messages[0]!;
    expect(mail.from).toBe("alerts@flightwatch.example");
    expect(mail.to).toEqual([A]);
    expect(mail.headers.subject).toBe("KL1001 2026-11-21: gate D7 → D9");
    expect(mail.headers.from).toBe(FROM);
    expect(mail.headers.to).toBe(A);
    expect(mail.headers["message-id"]).toMatch(
      /^<msg_[a-z2-7]{26}\.[0-9a-f]{12}@flightwatch\.example>$/,
    );
    expect(mail.headers["in-reply-to"]).toMatch(/^<thread-[0-9a-f]{32}@flightwatch\.example>$/);
    expect(mail.headers.references).toBe(mail.headers["in-reply-to"]);
    expect(mail.headers["auto-submitted"]).toBe("auto-generated");
    expect(mail.headers["content-type"]).toMatch(/^multipart\/alternative;/);
    expect(mail.raw).toMatch(/Content-Type: text\/plain; charset=utf-8/);
    expect(mail.raw).toMatch(/Content-Type: text\/html; charset=utf-8/);
    expect(mail.user).toBeUndefined();
  });

  it("sends a small message about a flight whose gate is 200,000 characters long", async () => {
    const { receiver, sender } = await setUp();
    const huge = "G".repeat(200_000);
    const channel = emailChannel([A]);
    const context: SendContext = { rule: ruleWith(channel), zone: ZONE, now: () => 0, attempt: 1 };
    const a = { ...alert("a1", [gateChange("D7", huge)]), current: { route: ["WAW"], gate: huge } };
    expect(await sender.send(notificationOf(a, channel), channel, context)).toMatchObject({
      status: "delivered",
    });
    const mail = receiver.messages[0];
    // Text and HTML parts, headers and MIME framing included: a few KB, not 1.1 MB.
    expect(mail?.raw.length).toBeLessThan(8_000);
    expect(mail?.headers.subject?.length).toBeLessThanOrEqual(200);
    expect(mail?.headers.subject).toMatch(/^KL1001 2026-11-21: gate D7 → G+…$/);
  });

  it("logs in with the credentials of SMTP_URL (percent-decoded), after STARTTLS", async () => {
    const auth = { user: "alerts@flightwatch.example", pass: "p:ss/w@rd" };
    const { receiver, sender } = await setUp({ auth, starttls: true }, auth);
    expect(await send(sender, emailChannel([A]))).toMatchObject({ status: "delivered" });
    expect(receiver.messages[0]?.user).toBe(auth.user);
    // The server accepts AUTH in clear too: encrypting first was the sender's doing.
    expect(receiver.auths).toEqual([{ user: auth.user, secure: true }]);
  });

  it("never sends credentials to a server that offers no STARTTLS: fails for good, saying why", async () => {
    const auth = { user: "mailer", pass: "smtp-secret-71c2" };
    const { receiver, sender } = await setUp({ auth }, auth);
    const outcome = await send(sender, emailChannel([A, B]));
    expect(outcome).toMatchObject({ status: "failed", reason: "smtp_permanent" });
    const detail = outcome.status === "failed" ? outcome.detail : "";
    expect(detail).toContain(`127.0.0.1:${receiver.port} did not start TLS`);
    expect(detail).toMatch(/smtps:\/\/.*SMTP_ALLOW_PLAINTEXT_AUTH=true/);
    expect(JSON.stringify(outcome)).not.toContain(auth.pass);
    // Neither AUTH nor any message reached the server.
    expect(receiver.auths).toEqual([]);
    expect(receiver.messages).toEqual([]);
    // Without credentials there is nothing to protect: mail goes out in clear as before.
    const { receiver: open, sender: anonymous } = await setUp();
    expect(await send(anonymous, emailChannel([A]))).toMatchObject({ status: "delivered" });
    expect(open.messages).toHaveLength(1);
  });

  it("sends credentials in clear to such a server with SMTP_ALLOW_PLAINTEXT_AUTH=true, which warns", async () => {
    const auth = { user: "mailer", pass: "smtp-secret-71c2" };
    const optOut = { SMTP_ALLOW_PLAINTEXT_AUTH: "true" };
    const { receiver, sender } = await setUp({ auth }, auth, optOut);
    expect(await send(sender, emailChannel([A]))).toMatchObject({ status: "delivered" });
    expect(receiver.auths).toEqual([{ user: "mailer", secure: false }]);
    expect(receiver.messages[0]?.user).toBe("mailer");

    const warning = plaintextAuthWarning(settingsFor(receiver.url(auth), optOut));
    expect(warning).toMatch(/^SMTP_ALLOW_PLAINTEXT_AUTH=true: the SMTP credentials .* in clear/);
    expect(warning).not.toContain(auth.pass);
    // Nothing to warn about without the opt-out, without credentials, or over smtps://.
    expect(plaintextAuthWarning(settingsFor(receiver.url(auth)))).toBeUndefined();
    expect(plaintextAuthWarning(settingsFor(receiver.url(), optOut))).toBeUndefined();
    expect(
      plaintextAuthWarning(settingsFor(receiver.url(auth).replace("smtp:", "smtps:"), optOut)),
    ).toBeUndefined();
  });

  it("sends no credentials over TLS to a server whose certificate it does not trust", async () => {
    const auth = { user: "mailer", pass: "smtp-secret-71c2" };
    receiver = await startSmtpReceiver({ auth, starttls: true });
    sender = new EmailSender(settingsFor(receiver.url(auth)));
    const outcome = await send(sender, emailChannel([A]));
    expect(outcome).toMatchObject({ status: "retry", reason: "connection" });
    expect(outcome.status === "retry" && outcome.detail).toMatch(/certificate/);
    expect(receiver.auths).toEqual([]);
  });

  it("fails for good when the server refuses the credentials (535)", async () => {
    receiver = await startSmtpReceiver({ auth: { user: "u", pass: "right" }, starttls: true });
    sender = new EmailSender(settingsFor(receiver.url({ user: "u", pass: "wrong" })), {
      tls: { ca: TEST_TLS.cert },
    });
    const outcome = await send(sender, emailChannel([A]));
    expect(outcome).toMatchObject({ status: "failed", reason: "smtp_permanent", code: 535 });
    expect(JSON.stringify(outcome)).not.toContain("wrong");
    expect(receiver.messages).toHaveLength(0);
  });

  it("sends each recipient a message of their own: nobody sees another's address", async () => {
    const { receiver, sender } = await setUp();
    const channel = emailChannel([A, B, C], {
      unsubscribeUrl: "https://app.example.com/unsubscribe?who={recipient}",
    });
    expect(await send(sender, channel)).toEqual({ status: "delivered", code: 250 });
    const mails = [...receiver.messages].sort((x, y) =>
      (x.to[0] ?? "").localeCompare(y.to[0] ?? ""),
    );
    expect(mails.map((m) => m.to)).toEqual([[A], [B], [C]]);
    const id = notificationOf(alert("a1"), channel).id;
    for (const mail of mails) {
      const me = mail.to[0] as string;
      expect(mail.headers.to).toBe(me);
      expect(mail.headers.cc).toBeUndefined();
      for (const other of [A, B, C].filter((r) => r !== me)) {
        expect(mail.raw).not.toContain(other);
        expect(mail.raw).not.toContain(encodeURIComponent(other));
      }
      expect(mail.headers["list-unsubscribe"]).toBe(
        `<https://app.example.com/unsubscribe?who=${encodeURIComponent(me)}>`,
      );
      expect(mail.headers["x-flightwatch-notification"]).toBe(id);
      expect(mail.headers["message-id"]?.startsWith(`<${id}.`)).toBe(true);
      expect(mail.headers.subject).toBe("KL1001 2026-11-21: gate D7 → D9");
    }
    expect(new Set(mails.map((m) => m.headers["message-id"])).size).toBe(3);
  });

  it("retries only the recipient answered 4xx, then sends it the same message", async () => {
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
    // B's own Message-ID, as B's first attempt carried it: the same on every resend.
    const expected = emailMessageId(
      notificationOf(alert("a1"), channel).id,
      B,
      "flightwatch.example",
    );
    expect(two?.headers["message-id"]).toBe(expected);
    expect(one?.headers["message-id"]).not.toBe(expected);
    expect(two?.headers.to).toBe(B);
    expect(receiver.rcptCount(A)).toBe(1);
    expect(receiver.rcptCount(B)).toBe(2);
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

  it("fails for good on a 5xx to every message, and retries everyone on a 4xx", async () => {
    const { receiver, sender } = await setUp({
      data: (_to, attempt) =>
        attempt <= 2 ? { code: 554, message: "5.6.0 Rejected" } : { code: 451 },
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "failed",
      reason: "smtp_permanent",
      code: 554,
      detail: expect.stringContaining("5.6.0 Rejected"),
      refused: [{ recipient: A }, { recipient: B }],
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "retry",
      reason: "smtp_transient",
      code: 451,
      retryRecipients: [A, B],
    });
    expect(receiver.messages).toHaveLength(0);
  });

  it("refuses only the recipient whose own message a 5xx refused, delivering to the others", async () => {
    const { receiver, sender } = await setUp({
      data: (to) =>
        to.includes(B) ? { code: 554, message: "5.7.1 Not for this mailbox" } : undefined,
    });
    expect(await send(sender, emailChannel([A, B]))).toMatchObject({
      status: "delivered",
      refused: [{ recipient: B, reason: expect.stringContaining("5.7.1") }],
    });
    expect(receiver.messages.map((m) => m.to)).toEqual([[A]]);
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
