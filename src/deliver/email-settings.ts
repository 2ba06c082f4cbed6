/**
 * What the email sender is configured with (read from `SMTP_URL`, `EMAIL_FROM`,
 * `SMTP_ALLOW_PLAINTEXT_AUTH` and the pool's `SMTP_MAX_CONNECTIONS` and
 * `SMTP_MAX_MESSAGES` by src/config/email-settings.ts), and how it is described
 * in messages and logs without its password.
 */

/** Ports used when `SMTP_URL` gives none: the SMTP port, and the implicit-TLS submission port. */
export const DEFAULT_SMTP_PORT = 25;
/** See DEFAULT_SMTP_PORT. */
export const DEFAULT_SMTPS_PORT = 465;

/** What the email sender needs to connect and to sign its messages. */
export interface EmailSettings {
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  port: number;
  /** TLS from the first byte (`smtps://`); `smtp://` upgrades with STARTTLS when the server offers it. */
  secure: boolean;
  /**
   * Credentials from the URL, percent-decoded. Sent over TLS only: with `smtp://` the
   * session must upgrade with STARTTLS first, unless `allowPlaintextAuth`.
   */
  auth?: { user: string; pass: string };
  /** `SMTP_ALLOW_PLAINTEXT_AUTH=true`: send the credentials without TLS when the server offers none. */
  allowPlaintextAuth: boolean;
  /** `EMAIL_FROM` as given: `Flightwatch <alerts@example.com>` or a bare address. */
  from: string;
  /** The bare sender address (envelope sender, `Message-ID` domain). */
  fromAddress: string;
  /** `SMTP_MAX_CONNECTIONS`: connections the pool keeps open at once (default 3). */
  maxConnections?: number;
  /**
   * `SMTP_MAX_MESSAGES`: messages sent over one connection before it is replaced
   * (default 100); each replacement pauses that connection for 100 ms.
   */
  maxMessages?: number;
}

/**
 * Defaults of `SMTP_MAX_CONNECTIONS` — Exchange Online's limit for authenticated SMTP —
 * and `SMTP_MAX_MESSAGES` (nodemailer's own: some servers close a session after about 100).
 */
export const DEFAULT_SMTP_MAX_CONNECTIONS = 3;
/** See DEFAULT_SMTP_MAX_CONNECTIONS. */
export const DEFAULT_SMTP_MAX_MESSAGES = 100;

/**
 * What to warn about once at start: credentials that may cross the network in clear
 * because the operator opted out of TLS for them; undefined when nothing is at risk.
 */
export function plaintextAuthWarning(settings: EmailSettings | undefined): string | undefined {
  if (settings?.auth === undefined || settings.secure || !settings.allowPlaintextAuth) {
    return undefined;
  }
  return `SMTP_ALLOW_PLAINTEXT_AUTH=true: the SMTP credentials of SMTP_URL are sent in clear when ${describeServer(settings)} offers no STARTTLS; use smtps:// or a server with STARTTLS, and unset SMTP_ALLOW_PLAINTEXT_AUTH`;
}

/** `host:port` of the server, for messages. */
export function describeServer(settings: Pick<EmailSettings, "host" | "port">): string {
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  return `${host}:${settings.port}`;
}

/** The settings for logs: the password replaced by `***`. */
export function describeEmailSettings(settings: EmailSettings): string {
  const scheme = settings.secure ? "smtps" : "smtp";
  const user = settings.auth ? `${encodeURIComponent(settings.auth.user)}:***@` : "";
  return `${scheme}://${user}${describeServer(settings)}, from ${settings.from}`;
}
