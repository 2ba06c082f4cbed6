/**
 * Credentials inside free text (log messages, error messages and stacks, any string
 * field), found by their shape: URL passwords, Slack webhook paths and tokens, bearer and basic
 * tokens (token-like values only, not the prose words after "Bearer"), JWTs, Standard Webhooks secrets, credential query parameters and
 * `name=value` pairs. What stays is what a reader needs to act: scheme, host, user,
 * parameter and variable names. A credential with no recognisable shape (a bare
 * webhook secret) is masked only when given to `secretMasker` by value.
 */
import { maskUrl } from "./mask-url.js";

/** Masks credentials in a string; returns the string unchanged when it holds none. */
export type TextMasker = (text: string) => string;

/** Literal secrets shorter than this are not masked (see `secretMasker`). */
export const MIN_LITERAL_SECRET_LENGTH = 8;

/** What the shape rules put in place of a credential. */
const MASK = "***";

/** Words that make a parameter or field name a credential (`token`, `api_key`, `signature`…). */
const CREDENTIAL_WORD = "(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|app[_-]?key|signature|sig)";

/** A name that ends in a credential word (`FLIGHT_API_TOKEN`, `smtpPassword`, `app_id`). */
const CREDENTIAL_NAME = `[\\w-]*(?:${CREDENTIAL_WORD}|authorization|app[_-]?id|pass)`;

/**
 * A shape rule: where it may apply (a cheap test on the text and its lower-case form,
 * so that the common message without `=`, quotes or `://` costs a few `includes`), the
 * pattern, and its replacement (the first group kept, the rest masked).
 */
interface Rule {
  when: (text: string, lower: string) => boolean;
  pattern: RegExp;
  replacement: string | ((match: string, lead: string, value: string) => string);
}

/** Punctuation that ends a sentence or a parenthesis, not a credential. */
const TRAILING_PUNCTUATION = /[)\].,;:!?]+$/;

/**
 * The value after `Bearer`/`Basic`, masked when it looks like a credential: anything
 * with a digit, a symbol, a capital letter or more than 14 characters. A short word or
 * two in lower case ("Bearer token) or …", "Basic authentication") is prose, kept so the
 * sentence stays readable. (Mixed-case letters were once taken for prose too: a token
 * such as `aAaaaaaaabBc` went out in a log line.)
 */
const maskCredentialWord = (_match: string, lead: string, value: string): string => {
  const trailing = TRAILING_PUNCTUATION.exec(value)?.[0] ?? "";
  const core = value.slice(0, value.length - trailing.length);
  const prose = core === "" || (core.length <= 14 && /^[a-z]+(?:-[a-z]+)*$/.test(core));
  return prose ? `${lead}${value}` : `${lead}${MASK}${trailing}`;
};

/** Shape rules, applied in order after maskUrl. */
const RULES: readonly Rule[] = [
  // Slack incoming webhooks: the whole path is the credential; the host says what it is.
  {
    when: (_, lower) => lower.includes("hooks.slack"),
    pattern:
      /(\bhttps?:\/\/hooks\.slack(?:-gov)?\.com\/(?:(?:services|workflows|triggers)\/)?)[^\s"'<>`]+/gi,
    replacement: `$1${MASK}`,
  },
  // Slack tokens (`xoxb-…` bot, `xoxp-…` user, `xapp-…` app-level …): the kind stays.
  {
    when: (text) => text.includes("xox") || text.includes("xapp-"),
    pattern: /\b(xox[abeoprs]-|xapp-)[A-Za-z0-9-]+/g,
    replacement: `$1${MASK}`,
  },
  // RFC 6750 bearer tokens and RFC 7617 basic credentials, wherever they are quoted;
  // words in prose after "Bearer"/"Basic" are not credentials (maskCredentialWord).
  {
    when: (_, lower) => lower.includes("bearer"),
    pattern: /(\bBearer\s+)([^\s"']+)/gi,
    replacement: maskCredentialWord,
  },
  {
    when: (text) => text.includes("Basic"),
    pattern: /(\bBasic\s+)([A-Za-z0-9+/]{8,}={0,2})/g,
    replacement: maskCredentialWord,
  },
  // A JWT without its `Bearer` (a token pasted into a message or a config dump).
  {
    when: (text) => text.includes("eyJ"),
    pattern: /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g,
    replacement: MASK,
  },
  // Standard Webhooks signing secrets.
  {
    when: (text) => text.includes("whsec_"),
    pattern: /\b(whsec_)[A-Za-z0-9+/=_-]+/g,
    replacement: `$1${MASK}`,
  },
  // Query parameters whose name holds a credential word (`?token=`, `&api_key=`, `&sig=`).
  {
    when: (text) => text.includes("="),
    pattern: new RegExp(
      `([?&;][\\w.%-]*(?:${CREDENTIAL_WORD}|key|auth)[\\w.%-]*=)[^&#\\s"<>]*`,
      "gi",
    ),
    replacement: `$1${MASK}`,
  },
  // Quoted values of credential names: JSON (`"password":"…"`), util.inspect and YAML
  // (`password: '…'`), quoted assignments (`TOKEN="…"`). The value runs to the
  // matching unescaped quote (an escape counts as one character).
  {
    when: (text) => text.includes('"') || text.includes("'"),
    pattern: new RegExp(
      `(\\b${CREDENTIAL_NAME}\\\\?["']?\\s*[:=]\\s*\\\\?(["']))(?:\\\\.|(?!\\2)[^\\\\\\r\\n])*`,
      "gi",
    ),
    replacement: `$1${MASK}`,
  },
  // Unquoted assignments (`FLIGHT_API_TOKEN=…`, `authorization=Bearer …`), to the next
  // white space: a value may hold any other character. A query parameter (after `?`,
  // `&` or `;`) was masked above, up to its `&`. A bare colon is left alone so that
  // messages naming a variable (`APP_KEY: is not set`) stay readable.
  {
    when: (text) => text.includes("="),
    pattern: new RegExp(
      `((?<![?&;\\w.%-])\\b${CREDENTIAL_NAME}\\s*=\\s*)(?:(?:Bearer|Basic)\\s+)?\\S+`,
      "gi",
    ),
    replacement: `$1${MASK}`,
  },
  // Header dumps (`authorization: …`, `App-Key: …`), in the lower or title case HTTP
  // clients print, not upper case: `APP_KEY: is not set` names a variable, keep it readable.
  {
    when: (text) => text.includes(":"),
    pattern:
      /(\b(?:[Aa]uthorization|[Pp]roxy-[Aa]uthorization|[Aa]pp[_-][Kk]ey|[Aa]pp[_-][Ii]d|[Xx]-[Aa]pi-[Kk]ey|[Cc]ookie|[Ss]et-[Cc]ookie):\s*)[^\r\n]+/g,
    replacement: `$1${MASK}`,
  },
];

/** Masks every credential-shaped part of `text` (see the module comment). */
export const maskSecrets: TextMasker = (text) => {
  let out = text.includes("://") ? maskUrl(text) : text;
  const lower = out.toLowerCase();
  for (const rule of RULES) {
    if (!rule.when(out, lower)) continue;
    const { replacement } = rule;
    out =
      typeof replacement === "string"
        ? out.replace(rule.pattern, replacement)
        : out.replace(rule.pattern, replacement);
  }
  return out;
};

/**
 * A masker that also replaces the given literal secrets (and their percent-encoded
 * forms) by `[redacted]` before the shape rules run: the credentials a process knows
 * it holds, whatever text they end up in. Secrets shorter than
 * MIN_LITERAL_SECRET_LENGTH are skipped: masking a token "t" would garble every line
 * while hiding nothing a reader could use.
 */
export function secretMasker(secrets: readonly string[] = []): TextMasker {
  const literals = [
    ...new Set(
      secrets
        .filter((s) => s.length >= MIN_LITERAL_SECRET_LENGTH)
        .flatMap((s) => [s, encodeURIComponent(s)]),
    ),
  ].sort((a, b) => b.length - a.length); // longest first: one secret may contain another
  if (literals.length === 0) return maskSecrets;
  return (text) => {
    let out = text;
    for (const literal of literals) {
      if (out.includes(literal)) out = out.split(literal).join("[redacted]");
    }
    return maskSecrets(out);
  };
}
