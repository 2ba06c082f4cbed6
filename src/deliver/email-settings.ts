/**
 * Email configuration from the environment: `SMTP_URL` (where and how to submit mail)
 * and `EMAIL_FROM` (the sender). Read once at start-up; a bad value stops the process
 * with a message naming the variable, never echoing the password. Unset `SMTP_URL`
 * means "email is not configured": the sender then fails each email notification
 * with `not_configured` instead of the daemon refusing to start.
 */
import addressparser from "nodemailer/lib/addressparser";
import { ConfigError, ConfigProblems } from "../errors.js";

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
  /** Credentials from the URL, percent-decoded. */
  auth?: { user: string; pass: string };
  /** `EMAIL_FROM` as given: `Flightwatch <alerts@example.com>` or a bare address. */
  from: string;
  /** The bare sender address (envelope sender, `Message-ID` domain). */
  fromAddress: string;
}

const SMTP_URL_HINT = "write it as smtp://user:password@host:port or smtps://user:password@host";
const ADDRESS_RE = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/;

/** Email settings from an environment record; undefined when `SMTP_URL` is unset or empty. */
export function readEmailSettings(
  env: Readonly<Record<string, string | undefined>>,
): EmailSettings | undefined {
  const raw = env.SMTP_URL?.trim();
  if (!raw) return undefined;
  // Both variables are checked, so a start reports both when both are wrong.
  const problems = new ConfigProblems();
  const settings = problems.take(() => parseSmtpUrl(raw));
  const sender = problems.take(() => parseFrom(env.EMAIL_FROM));
  problems.throwIfAny();
  return {
    ...(settings as ReturnType<typeof parseSmtpUrl>),
    ...(sender as ReturnType<typeof parseFrom>),
  };
}

/** The settings for logs: the password replaced by `***`. */
export function describeEmailSettings(settings: EmailSettings): string {
  const scheme = settings.secure ? "smtps" : "smtp";
  const user = settings.auth ? `${encodeURIComponent(settings.auth.user)}:***@` : "";
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  return `${scheme}://${user}${host}:${settings.port}, from ${settings.from}`;
}

function parseSmtpUrl(raw: string): Omit<EmailSettings, "from" | "fromAddress"> {
  let url: URL;
  try {
    // `host:25` parses as scheme `host`: without `://` it is no URL we could mean.
    if (!raw.includes("://")) throw new TypeError("no scheme");
    url = new URL(raw);
  } catch {
    // The text itself may hold the password: never repeat it.
    throw new ConfigError("SMTP_URL", `is not a URL; ${SMTP_URL_HINT}`);
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== "smtp" && scheme !== "smtps") {
    throw new ConfigError("SMTP_URL", `must start with smtp:// or smtps:// (not ${scheme}://)`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") throw new ConfigError("SMTP_URL", `names no host; ${SMTP_URL_HINT}`);
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    throw new ConfigError(
      "SMTP_URL",
      `takes no path, query or fragment (found after ${scheme}://${url.host}); ${SMTP_URL_HINT}`,
    );
  }
  const secure = scheme === "smtps";
  const port =
    url.port === "" ? (secure ? DEFAULT_SMTPS_PORT : DEFAULT_SMTP_PORT) : Number(url.port);
  if (port === 0) throw new ConfigError("SMTP_URL", "port 0 is not a port; give 1–65535");
  const settings: Omit<EmailSettings, "from" | "fromAddress"> = { host, port, secure };
  if (url.username !== "" || url.password !== "") {
    const user = decode(url.username);
    const pass = decode(url.password);
    if (user === "" || pass === "") {
      throw new ConfigError(
        "SMTP_URL",
        `has a ${user === "" ? "password but no user name" : "user name but no password"}; give both (user:password@) or neither`,
      );
    }
    settings.auth = { user, pass };
  }
  return settings;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ConfigError(
      "SMTP_URL",
      "the user name or password has a bad %-escape; percent-encode special characters (@ as %40, : as %3A, / as %2F, % as %25)",
    );
  }
}

function parseFrom(value: string | undefined): { from: string; fromAddress: string } {
  const from = value?.trim();
  if (!from) {
    throw new ConfigError(
      "EMAIL_FROM",
      'is not set, but SMTP_URL is: mail needs a sender, e.g. EMAIL_FROM="Flightwatch <alerts@example.com>"',
    );
  }
  const parsed = addressparser(from, { flatten: true });
  const first = parsed[0];
  if (parsed.length !== 1 || first?.address === undefined || !ADDRESS_RE.test(first.address)) {
    throw new ConfigError(
      "EMAIL_FROM",
      `\`${from}\` is not one email address; write alerts@example.com or "Flightwatch <alerts@example.com>"`,
    );
  }
  return { from, fromAddress: first.address };
}
