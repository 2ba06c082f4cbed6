/**
 * The daemon's logger: pino, one JSON object per line (what Loki, ELK and CloudWatch
 * read) or a one-line text format for terminals, with secrets masked in every field,
 * message, child binding and error before anything is written.
 *
 * The default destination is standard output written synchronously: every line is in
 * the pipe or file before the call returns, so nothing is lost on `process.exit()`,
 * on a crash, or when the process is SIGKILLed (the crash tests do that). An
 * asynchronous buffer would be faster, but the daemon logs tens of lines a second, not
 * thousands, and the lines before a crash are the ones worth having.
 */
import { hostname } from "node:os";
import { type DestinationStream, type LogFn, type Logger, pino } from "pino";
import { ConfigError } from "../errors.js";
import { secretMasker, type TextMasker } from "./mask-secrets.js";
import { REDACTED, redactValue, SECRET_FIELDS } from "./redact-value.js";
import { TextFormatStream } from "./text-format.js";

export type { Logger } from "pino";

/** Log levels, most severe first; `silent` turns logging off. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
/** One of LOG_LEVELS. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object per line, for machines; `text`: one readable line, for terminals. */
export type LogFormat = "json" | "text";

/** How to build the logger. */
export interface LoggerOptions {
  /** Least severe level written; default `info`. */
  level?: LogLevel;
  /** Default `json`. */
  format?: LogFormat;
  /** Where lines go; default standard output, written synchronously. */
  destination?: NodeJS.WritableStream;
  /** Fields on every line, added to (or replacing) `service`, `pid` and `hostname`. */
  base?: Record<string, unknown>;
  /**
   * Credentials the process holds (API token, app key, SMTP password, webhook secrets),
   * masked by value wherever they appear, on top of the masking by field name and shape.
   */
  secrets?: readonly string[];
}

/** The level named by an environment variable; unset or empty means `info`. */
export function parseLogLevel(value: string | undefined, variable = "LOG_LEVEL"): LogLevel {
  const text = value?.trim().toLowerCase();
  if (text === undefined || text === "") return "info";
  if ((LOG_LEVELS as readonly string[]).includes(text)) return text as LogLevel;
  throw new ConfigError(
    variable,
    `"${value}" is not a log level; set it to one of ${LOG_LEVELS.join(", ")} (or leave it unset for info)`,
  );
}

/**
 * pino's own redaction, a second net under `redactValue`: the credential field names
 * at the top level, and under `headers` in the spellings HTTP uses. Explicit paths
 * only: a wildcard (`*.token`) makes pino re-serialize every field of every entry
 * (measured: ~45 µs a line instead of ~5 µs), and `redactValue` covers any depth.
 */
const HEADER_NAMES = ["authorization", "proxy-authorization", "cookie", "set-cookie"];
const REDACT_PATHS = [
  ...SECRET_FIELDS,
  "app_key",
  "app_id",
  "api_key",
  "access_token",
  "client_secret",
  ...[...HEADER_NAMES, "app_key", "app_id", "app-key", "app-id", "x-api-key"].map(
    (name) => `headers["${name}"]`,
  ),
];

/** The logger the daemon passes around; `logger.child({ flightId })` for context. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const mask = secretMasker(options.secrets);
  const sink: DestinationStream = options.destination ?? pino.destination({ dest: 1, sync: true });
  const stream = options.format === "text" ? new TextFormatStream(sink) : sink;
  const logger = pino(
    {
      level: options.level ?? "info",
      base: { service: "flightwatch", pid: process.pid, hostname: hostname(), ...options.base },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        bindings: (bindings) => redactObject(bindings, mask),
        log: (fields) => redactObject(fields, mask),
      },
      serializers: {
        // Errors were turned into masked plain objects by `formatters.log` already;
        // pino's default serializer would rename their type to `Object`.
        err: (value: unknown) => value,
        msg: (value: unknown) =>
          typeof value === "string" ? mask(value) : redactValue(value, mask),
      },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: {
        logMethod(args, method) {
          method.apply(this, maskFormatArgs(args, mask));
        },
      },
    },
    stream,
  );
  // pino runs `formatters.bindings` for the root only and writes a child's bindings
  // as given. Children are created from their parent with Object.create, so replacing
  // `child` and `setBindings` on the root masks the bindings of every descendant.
  const { child, setBindings } = logger;
  logger.child = function (this: Logger, bindings, childOptions) {
    return child.call(this, redactObject(bindings, mask), childOptions);
  } as Logger["child"];
  logger.setBindings = function (this: Logger, bindings) {
    setBindings.call(this, redactObject(bindings, mask));
  };
  return logger;
}

function redactObject(value: Record<string, unknown>, mask: TextMasker): Record<string, unknown> {
  return redactValue(value, mask) as Record<string, unknown>;
}

/**
 * printf-style arguments (`logger.info("sent to %s", url)`) are joined into the message
 * after the formatters ran: mask them here. Errors become their masked `Type: message`.
 */
function maskFormatArgs(args: Parameters<LogFn>, mask: TextMasker): Parameters<LogFn> {
  const first = typeof args[0] === "object" && args[0] !== null ? 2 : 1;
  if (args.length <= first) return args;
  return args.map((arg: unknown, i: number) => {
    if (i < first || arg === null || typeof arg !== "object") return arg;
    if (arg instanceof Error) return mask(`${arg.name}: ${arg.message}`);
    return redactValue(arg, mask);
  }) as Parameters<LogFn>;
}
