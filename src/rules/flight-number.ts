/**
 * One spelling per flight number, shared by the rule loader (numbers users write) and
 * the matcher (numbers the upstream sends, `KL0601`): upper-case, no spaces, no
 * leading zeros in the numeric part, so `kl 0601`, `KL0601` and `KL601` are one key.
 */

/**
 * An airline designator — ICAO (three letters) or IATA (two characters, at least one a
 * letter: `KL`, `U2`, `3U`) — then the number, then an optional operational suffix.
 * The alternatives cannot overlap: after three letters no 2-character designator can be
 * followed by a digit, so `KLM601` is KLM and `KL601` is KL.
 */
const SHAPE = /^([A-Z]{3}|[A-Z][A-Z0-9]|[0-9][A-Z])0*(\d{1,4})([A-Z]?)$/;

/** Anything `\s` matches, removed before the shape check (`kl 0601`, `KL\u00a0601`). */
const SPACES = /\s+/g;

/**
 * The normal form of a flight number (`kl 0601` → `KL601`), or undefined when the text
 * is not shaped like one (2–3 character airline designator, 1–4 digits, optional letter).
 * All-zero numbers keep one digit (`KL000` → `KL0`: `0*` gives the last zero back).
 */
export function normaliseFlightNumber(text: string): string | undefined {
  const compact = text.replace(SPACES, "").toUpperCase();
  const parts = SHAPE.exec(compact);
  return parts === null ? undefined : `${parts[1]}${parts[2]}${parts[3]}`;
}

/** The airline designator of a flight number (`KL` of `kl 0601`, `KLM` of `KLM601`), if shaped like one. */
export function airlineDesignator(text: string): string | undefined {
  const compact = text.replace(SPACES, "").toUpperCase();
  return SHAPE.exec(compact)?.[1];
}
