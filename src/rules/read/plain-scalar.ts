/**
 * How the fast reader (fast-yaml.ts) reads scalars, exactly as the `yaml` package does
 * under the YAML 1.2 core schema: which plain scalars are null, booleans or numbers,
 * which are valid JSON literals, and the JSON escapes of double-quoted strings.
 */

const NULL_RE = /^(?:~|[Nn]ull|NULL)$/;
const BOOL_RE = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_RE = /^[-+]?[0-9]+$/;
const FLOAT_RE =
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$|^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** Octal, hex, infinity and NaN: valid, but rare enough to leave to `yaml`. */
const RARE_NUMBER_RE = /^0o[0-7]+$|^0x[0-9a-fA-F]+$|^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/;
const JSON_LITERAL_RE =
  /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)$/;
/** First characters of the plain scalars that may be other than strings. */
const MAYBE_NOT_STRING = /^[0-9+\-.~nNtTfF]/;

/**
 * A plain scalar's value under the core schema, as `yaml` resolves it; undefined for the
 * rare forms (octal, hex, infinity, NaN) the fast reader leaves to `yaml`.
 */
export function resolvePlain(text: string): string | number | boolean | null | undefined {
  if (!MAYBE_NOT_STRING.test(text)) return text;
  if (NULL_RE.test(text)) return null;
  if (BOOL_RE.test(text)) return text[0] === "t" || text[0] === "T";
  if (INT_RE.test(text)) return Number.parseInt(text, 10);
  if (FLOAT_RE.test(text)) return Number.parseFloat(text);
  if (RARE_NUMBER_RE.test(text)) return undefined;
  return text;
}

/** Whether a plain token is a JSON literal (`true`, `false`, `null` or a JSON number). */
export function isJsonLiteral(text: string): boolean {
  return JSON_LITERAL_RE.test(text);
}

/** The JSON escapes of double-quoted strings (a subset of YAML's), but `\u`. */
export const JSON_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ["\\", "\\"],
  ["/", "/"],
  ["b", "\b"],
  ["f", "\f"],
  ["n", "\n"],
  ["r", "\r"],
  ["t", "\t"],
]);
