/**
 * Makes any value safe to log: a copy in which fields named like credentials are
 * replaced by `[redacted]`, fields named like URLs keep only scheme, host and the start
 * of the path, every other string goes through the text masker, and errors become
 * plain objects (type, code, message, stack, own fields, cause chain) masked the same
 * way. The logger runs it over every entry's fields and child bindings, so a secret is
 * hidden whatever field, depth or error it arrives in.
 */
import { maskSecrets, type TextMasker } from "./mask-secrets.js";
import { maskEndpointUrl } from "./mask-url.js";

/** What replaces a field whose name says it is a credential. */
export const REDACTED = "[redacted]";

/**
 * Field names (as written in code, headers and configs) whose value is a credential,
 * matched case-insensitively and ignoring `-` and `_` (`app_key`, `App-Key`, `appKey`).
 * The logger also hands them to pino's own `redact` paths.
 */
export const SECRET_FIELDS = [
  "token",
  "accessToken",
  "refreshToken",
  "apiKey",
  "appKey",
  "appId",
  "xApiKey",
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "clientSecret",
  "authorization",
  "proxyAuthorization",
  "auth",
  "credentials",
  "cookie",
  "setCookie",
  "privateKey",
  "signature",
] as const;

/** Name endings that make any field a credential (`slackToken`, `webhookSecret`, `smtpPassword`). */
const SECRET_SUFFIXES = ["token", "secret", "password", "passwd", "apikey", "appkey", "privatekey"];

/** Name endings of URL fields (`url`, `smtpUrl`, `redisUrl`, `webhookUri`, `href`, `endpoint`). */
const URL_SUFFIXES = ["url", "uri", "href", "endpoint"];

const SECRET_NAMES = new Set<string>(SECRET_FIELDS.map(normalize));

/** Deeper structures are cut: log entries are not the place for whole object graphs. */
const MAX_DEPTH = 8;
/** Longer arrays keep their first items and a count of the rest. */
const MAX_ITEMS = 100;

/** True when a field of this name holds a credential. */
export function isSecretField(name: string): boolean {
  const n = normalize(name);
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((suffix) => n.endsWith(suffix));
}

/** True when a field of this name holds a URL that may carry a credential in its path. */
export function isUrlField(name: string): boolean {
  const n = normalize(name);
  return URL_SUFFIXES.some((suffix) => n.endsWith(suffix));
}

/** A masked copy of `value`, ready for JSON (see the module comment). */
export function redactValue(value: unknown, mask: TextMasker = maskSecrets): unknown {
  return walk(value, undefined, 0, new Set(), mask);
}

/** The fields of an error, masked: what the logger writes under `err`. */
export function redactError(err: Error, mask: TextMasker = maskSecrets): Record<string, unknown> {
  return errorFields(err, 0, new Set(), mask);
}

function walk(
  value: unknown,
  key: string | undefined,
  depth: number,
  seen: Set<object>,
  mask: TextMasker,
): unknown {
  if (value === null || value === undefined || typeof value === "boolean") return value;
  if (key !== undefined && isSecretField(key)) return REDACTED;
  switch (typeof value) {
    case "string":
      return key !== undefined && isUrlField(key) ? maskUrlField(value, mask) : mask(value);
    case "number":
      return value;
    case "bigint":
      return value.toString();
    case "function":
    case "symbol":
      return undefined;
  }
  const object = value as object;
  if (seen.has(object)) return "[circular]";
  if (depth >= MAX_DEPTH) return "[too deep]";
  seen.add(object);
  try {
    if (object instanceof Error) return errorFields(object, depth, seen, mask);
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? null : object.toISOString();
    // Bodies and buffers may hold anything: say what they were, not what they held.
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      return `[${object.constructor.name} ${object.byteLength} bytes]`;
    }
    if (object instanceof Map) {
      return walkEntries(
        [...object].map(([k, v]) => [String(k), v]),
        depth,
        seen,
        mask,
      );
    }
    if (object instanceof Set) return walkArray([...object], key, depth, seen, mask);
    if (Array.isArray(object)) return walkArray(object, key, depth, seen, mask);
    // URL, luxon DateTime and the like say how they want to be written.
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      return walk(toJSON.call(object), key, depth + 1, seen, mask);
    }
    return walkEntries(Object.entries(object), depth, seen, mask);
  } finally {
    seen.delete(object);
  }
}

function walkArray(
  items: readonly unknown[],
  key: string | undefined,
  depth: number,
  seen: Set<object>,
  mask: TextMasker,
): unknown[] {
  // Items inherit the array's name: `urls: [...]` holds URLs, `tokens: [...]` tokens.
  const out = items.slice(0, MAX_ITEMS).map((item) => walk(item, key, depth + 1, seen, mask));
  if (items.length > MAX_ITEMS) out.push(`[${items.length - MAX_ITEMS} more]`);
  return out;
}

function walkEntries(
  entries: ReadonlyArray<readonly [string, unknown]>,
  depth: number,
  seen: Set<object>,
  mask: TextMasker,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const authCommand = entries.some(([k, v]) => k === "name" && isAuthCommand(v));
  for (const [k, v] of entries) {
    // A Redis command in an error (ioredis `err.command`): AUTH and HELLO carry the password.
    const masked = authCommand && k === "args" ? REDACTED : walk(v, k, depth + 1, seen, mask);
    // A key may itself be a credential (a map keyed by token or URL).
    if (masked !== undefined) out[mask(k)] = masked;
  }
  return out;
}

function errorFields(
  err: Error,
  depth: number,
  seen: Set<object>,
  mask: TextMasker,
): Record<string, unknown> {
  const out: Record<string, unknown> = { type: err.name || err.constructor.name };
  const code = (err as { code?: unknown }).code;
  if (code !== undefined) out.code = walk(code, "code", depth + 1, seen, mask);
  out.message = mask(String(err.message));
  if (typeof err.stack === "string") out.stack = mask(err.stack);
  // Own fields: `details`, `setting`, `problems`, `status`…
  for (const [k, v] of Object.entries(err)) {
    if (k in out || k === "cause" || k === "name") continue;
    const masked = walk(v, k, depth + 1, seen, mask);
    if (masked !== undefined) out[k] = masked;
  }
  // Not enumerable, so not among the own fields above.
  const members = (err as { errors?: unknown }).errors;
  if (Array.isArray(members)) out.errors = walk(members, "errors", depth + 1, seen, mask);
  if (err.cause !== undefined) out.cause = walk(err.cause, "cause", depth + 1, seen, mask);
  return out;
}

function maskUrlField(value: string, mask: TextMasker): string {
  // Not an absolute URL (a path, `host:port`): the text masker still finds credentials.
  if (!value.includes("://")) return mask(value);
  const cut = maskEndpointUrl(value);
  return mask(cut === "(not a URL)" ? value : cut);
}

function isAuthCommand(name: unknown): boolean {
  return typeof name === "string" && /^(?:auth|hello)$/i.test(name);
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, "");
}
