/**
 * `flightwatch config --check-connections`: whether what the configuration points at
 * answers with the credentials it gives — Redis (PING), the upstream (one cheap
 * request) and the SMTP server (a session up to AUTH, TLS first when credentials
 * are given, as the email sender connects) — each as one verdict naming the
 * variables to fix.
 */
import nodemailer from "nodemailer";
import type { FlightApiClientOptions } from "../api/client-options.js";
import { FlightApiClient } from "../api/flight-api-client.js";
import {
  type EmailSenderOptions,
  smtpTransportOptions,
  tlsRefusedDetail,
  tlsRequiredFor,
} from "../deliver/email-sender.js";
import { describeServer, type EmailSettings } from "../deliver/email-settings.js";
import { ErrorCode, FlightwatchError, UpstreamError } from "../errors.js";
import { maskUrl } from "../log/mask-url.js";
import { connectRedis } from "../store/redis-connection.js";

/** One checked connection. */
export interface CheckedConnection {
  /** What was checked: `Redis` or `upstream`. */
  name: string;
  ok: boolean;
  /** What answered, or what is wrong and which variable to fix. */
  detail: string;
  /** The error code of a failed check (`FW_ERR_REDIS_AUTH`, `FW_ERR_UPSTREAM_AUTH`, …). */
  code?: string;
}

/** Longest wait for each check's connection and answer. */
const CHECK_TIMEOUT_MS = 10_000;

/** Connects to REDIS_URL and PINGs it. */
export async function checkRedis(url: string, prefix: string): Promise<CheckedConnection> {
  try {
    const redis = await connectRedis(url, { timeoutMs: Math.min(CHECK_TIMEOUT_MS, 5_000) });
    redis.disconnect();
    return { name: "Redis", ok: true, detail: `answers at ${maskUrl(url)} (prefix ${prefix})` };
  } catch (err) {
    if (err instanceof FlightwatchError) {
      return { name: "Redis", ok: false, detail: err.message, code: err.code };
    }
    throw err;
  }
}

/**
 * One request the upstream serves cheaply whatever the day: the first page of
 * `/airlines` (what docs/operations.md suggests for checking credentials by hand), no
 * retries, short timeouts.
 */
export async function checkUpstream(options: FlightApiClientOptions): Promise<CheckedConnection> {
  const client = new FlightApiClient({
    ...options,
    maxAttempts: 1,
    connectTimeoutMs: Math.min(options.connectTimeoutMs ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS),
    headersTimeoutMs: Math.min(options.headersTimeoutMs ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS),
    bodyTimeoutMs: Math.min(options.bodyTimeoutMs ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS),
  });
  const base = client.baseUrl;
  try {
    await client.getAirlines();
    return {
      name: "upstream",
      ok: true,
      detail: `answers at ${base} (GET /airlines, ${credentialNames(options)})`,
    };
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    return {
      name: "upstream",
      ok: false,
      detail: upstreamProblem(err, options, base),
      code: err.code,
    };
  } finally {
    await client.close();
  }
}

/** What a failed check says: the variable to fix and how. */
function upstreamProblem(
  err: UpstreamError,
  options: FlightApiClientOptions,
  base: string,
): string {
  const status = err.status;
  switch (err.code) {
    case ErrorCode.UPSTREAM_AUTH:
      if (options.token === undefined && options.appId === undefined) {
        return `FLIGHT_API_BASE_URL (${base}) answered ${status}: no credentials are set; set FLIGHT_API_TOKEN, or FLIGHT_API_APP_ID and FLIGHT_API_APP_KEY`;
      }
      return `FLIGHT_API_BASE_URL (${base}) answered ${status}: ${credentialNames(options)} ${
        options.token !== undefined ? "was" : "were"
      } refused; check ${options.token !== undefined ? "the token" : "them"} and that ${
        options.token !== undefined ? "it is" : "they are"
      } for this environment`;
    case ErrorCode.UPSTREAM_BASE_URL:
      return `FLIGHT_API_BASE_URL: ${err.message}`;
    case ErrorCode.UPSTREAM_NETWORK:
      return `FLIGHT_API_BASE_URL (${base}) is unreachable: ${err.message}`;
    default:
      return `FLIGHT_API_BASE_URL (${base}): ${err.message} [${err.code}]`;
  }
}

/** The credential variables in use, by name only. */
function credentialNames(options: FlightApiClientOptions): string {
  if (options.token !== undefined) return "FLIGHT_API_TOKEN";
  if (options.appId !== undefined) return "FLIGHT_API_APP_ID/FLIGHT_API_APP_KEY";
  return "no credentials";
}

/** The fields of a nodemailer error the SMTP check reads. */
interface SmtpCheckError extends Error {
  code?: string;
  command?: string;
  response?: string;
  responseCode?: number;
}

/**
 * Opens one session to the SMTP server as the email sender would — STARTTLS before
 * AUTH when SMTP_URL has credentials (unless SMTP_ALLOW_PLAINTEXT_AUTH), then AUTH —
 * and closes it without sending anything.
 */
export async function checkSmtp(
  settings: EmailSettings,
  options: Pick<EmailSenderOptions, "tls"> = {},
): Promise<CheckedConnection> {
  const transport = nodemailer.createTransport(
    smtpTransportOptions(settings, { timeoutMs: CHECK_TIMEOUT_MS, ...options }),
  );
  const server = describeServer(settings);
  const how = settings.secure
    ? "TLS"
    : tlsRequiredFor(settings)
      ? "STARTTLS"
      : settings.auth
        ? "credentials in clear if the server offers no STARTTLS (SMTP_ALLOW_PLAINTEXT_AUTH)"
        : "no credentials";
  try {
    await transport.verify();
    const login = settings.auth ? `, logged in as ${settings.auth.user}` : "";
    return { name: "SMTP", ok: true, detail: `answers at ${server} (${how}${login})` };
  } catch (err) {
    const e = err as SmtpCheckError;
    const refused = e.code === "ETLS" && e.command === "STARTTLS";
    if (refused && e.responseCode !== undefined && tlsRequiredFor(settings)) {
      return {
        name: "SMTP",
        ok: false,
        detail: tlsRefusedDetail(settings, e.response ?? String(e.responseCode)),
        code: e.code,
      };
    }
    const what =
      e.code === "EAUTH"
        ? "refused the credentials of SMTP_URL"
        : e.code === "ETLS"
          ? "could not start TLS"
          : "is unreachable or answered wrongly";
    return {
      name: "SMTP",
      ok: false,
      detail: `SMTP_URL (${server}) ${what}: ${oneLineOf(e.message)}`,
      ...(e.code !== undefined ? { code: e.code } : {}),
    };
  } finally {
    transport.close();
  }
}

function oneLineOf(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
