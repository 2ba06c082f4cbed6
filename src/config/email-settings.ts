/**
 * Email settings from the environment: `SMTP_URL` (where and how to submit mail),
 * `EMAIL_FROM` (the sender), `SMTP_ALLOW_PLAINTEXT_AUTH` (the opt-out of TLS for
 * credentials) and the pool's size, `SMTP_MAX_CONNECTIONS` and `SMTP_MAX_MESSAGES`. Read once at start-up; a bad value stops the process with a message
 * naming the variable, never echoing the password. Unset `SMTP_URL` means "email is
 * not configured": the sender then fails each email notification with
 * `not_configured` instead of the daemon refusing to start.
 */
import addressparser from "nodemailer/lib/addressparser";
import {
  DEFAULT_SMTP_PORT,
  DEFAULT_SMTPS_PORT,
  type EmailSettings,
} from "../deliver/email-settings.js";
import { ConfigError, ConfigProblems } from "../errors.js";

const SMTP_URL_HINT = "write it as smtp://user:password@host:port or smtps://user:password@host";
const ADDRESS_RE = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+$/;

/** Email settings from an environment record; undefined when `SMTP_URL` is unset or empty. */
export function readEmailSettings(
  env: Readonly<Record<string, string | undefined>>,
): EmailSettings | undefined {
  const raw = env.SMTP_URL?.trim();
  // Every variable is checked, so a start reports all that are wrong — and even without
  // SMTP_URL: a typo must not wait for the day SMTP_URL is set.
  const problems = new ConfigProblems();
  const allowPlaintextAuth = problems.take(() => parseOptOut(env.SMTP_ALLOW_PLAINTEXT_AUTH));
  const maxConnections = problems.take(() =>
    parseCount(env, "SMTP_MAX_CONNECTIONS", MAX_SMTP_CONNECTIONS),
  );
  const maxMessages = problems.take(() => parseCount(env, "SMTP_MAX_MESSAGES", MAX_SMTP_MESSAGES));
  if (!raw) {
    problems.throwIfAny();
    return undefined;
  }
  const settings = problems.take(() => parseSmtpUrl(raw));
  const sender = problems.take(() => parseFrom(env.EMAIL_FROM));
  problems.throwIfAny();
  return {
    ...(settings as ReturnType<typeof parseSmtpUrl>),
    ...(sender as ReturnType<typeof parseFrom>),
    allowPlaintextAuth: allowPlaintextAuth ?? false,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...(maxMessages !== undefined ? { maxMessages } : {}),
  };
}

/** Largest `SMTP_MAX_CONNECTIONS`: more would be a flood no relay accepts from one client. */
const MAX_SMTP_CONNECTIONS = 100;
/** Largest `SMTP_MAX_MESSAGES`. */
const MAX_SMTP_MESSAGES = 1_000_000;

/** A whole number from 1 to `max`, or undefined when unset or empty. */
function parseCount(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  max: number,
): number | undefined {
  const text = env[name]?.trim();
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max) {
    throw new ConfigError(
      name,
      `expected a whole number from 1 to ${max.toLocaleString("en")}, got "${env[name]}"`,
    );
  }
  return value;
}

function parseSmtpUrl(
  raw: string,
): Omit<EmailSettings, "from" | "fromAddress" | "allowPlaintextAuth"> {
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
  const settings: Omit<EmailSettings, "from" | "fromAddress" | "allowPlaintextAuth"> = {
    host,
    port,
    secure,
  };
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

function parseOptOut(value: string | undefined): boolean {
  const text = value?.trim().toLowerCase();
  if (text === undefined || text === "") return false;
  if (["true", "1", "yes", "on"].includes(text)) return true;
  if (["false", "0", "no", "off"].includes(text)) return false;
  throw new ConfigError("SMTP_ALLOW_PLAINTEXT_AUTH", `expected true or false, got "${value}"`);
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
