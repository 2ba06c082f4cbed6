/**
 * `flightwatch config --check-connections` on SMTP_URL, against a real SMTP server: a
 * session as the email sender opens it — STARTTLS before AUTH when SMTP_URL has
 * credentials — so a server without STARTTLS is reported (naming the ways out) before
 * any notification fails, and never sees the credentials.
 */
import { afterEach, describe, expect, it } from "vitest";
import { checkSmtp } from "../../src/config/connection-check.js";
import { readEmailSettings } from "../../src/config/email-settings.js";
import type { EmailSettings } from "../../src/deliver/email-settings.js";
import { type SmtpReceiver, startSmtpReceiver, TEST_TLS } from "../support/smtp-receiver.js";

const AUTH = { user: "mailer", pass: "smtp-check-secret-9d" };
const TRUST = { tls: { ca: TEST_TLS.cert } };

let receiver: SmtpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function settings(url: string, env: Record<string, string> = {}): EmailSettings {
  const read = readEmailSettings({ SMTP_URL: url, EMAIL_FROM: "alerts@example.com", ...env });
  if (read === undefined) throw new Error("no settings");
  return read;
}

describe("SMTP connection check", () => {
  it("reports a server without STARTTLS when SMTP_URL has credentials, which it never sends", async () => {
    receiver = await startSmtpReceiver({ auth: AUTH });
    const verdict = await checkSmtp(settings(receiver.url(AUTH)), TRUST);
    expect(verdict).toMatchObject({ name: "SMTP", ok: false, code: "ETLS" });
    expect(verdict.detail).toMatch(
      /^127\.0\.0\.1:\d+ did not start TLS .*SMTP_URL has credentials/,
    );
    expect(verdict.detail).toContain("SMTP_ALLOW_PLAINTEXT_AUTH=true");
    expect(verdict.detail).not.toContain(AUTH.pass);
    expect(receiver.auths).toEqual([]);
  });

  it("logs in after STARTTLS when the server offers it, and says so", async () => {
    receiver = await startSmtpReceiver({ auth: AUTH, starttls: true });
    const verdict = await checkSmtp(settings(receiver.url(AUTH)), TRUST);
    expect(verdict).toEqual({
      name: "SMTP",
      ok: true,
      detail: `answers at 127.0.0.1:${receiver.port} (STARTTLS, logged in as mailer)`,
    });
    expect(receiver.auths).toEqual([{ user: "mailer", secure: true }]);
  });

  it("names refused credentials, and logs in in clear only when opted out", async () => {
    receiver = await startSmtpReceiver({ auth: AUTH, starttls: true });
    const wrong = await checkSmtp(settings(receiver.url({ ...AUTH, pass: "nope" })), TRUST);
    expect(wrong).toMatchObject({ ok: false, code: "EAUTH" });
    expect(wrong.detail).toMatch(/^SMTP_URL \(127\.0\.0\.1:\d+\) refused the credentials/);
    await receiver.close();

    receiver = await startSmtpReceiver({ auth: AUTH });
    const optedOut = settings(receiver.url(AUTH), { SMTP_ALLOW_PLAINTEXT_AUTH: "true" });
    expect(await checkSmtp(optedOut, TRUST)).toMatchObject({ ok: true });
    expect(receiver.auths).toEqual([{ user: "mailer", secure: false }]);
  });
});
