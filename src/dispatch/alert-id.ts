/**
 * Deterministic alert ids: the same rule, flight and events give the same id in every
 * process and after every restart, so a redelivered or re-decided alert keeps its id
 * and delivery can deduplicate on it (Standard Webhooks' `webhook-id`, CloudEvents' `id`).
 * Built on the event ids' MurmurHash3 (see `src/diff/event-id.ts` for why 128 bits of a
 * non-cryptographic hash are enough) with a seed of its own, so an alert id never equals
 * an event id.
 */
import { Murmur3Hash } from "../diff/murmur3-hash.js";

/** Seed of the alert id scheme; a new scheme must change it so old and new ids never meet. */
const ALERT_ID_SEED = 0x66770101;

/** Self-delimiting string tags (as in `eventId`): latin1 packs four units a word, else two. */
const TAG_LATIN1 = 7;
const TAG_UTF16 = 2;

const hasher = new Murmur3Hash(ALERT_ID_SEED);

/** The id of the alert of a rule about a flight carrying these events (order matters). */
export function alertId(ruleId: string, flightKey: string, eventIds: readonly string[]): string {
  // One shared hasher: hashing is synchronous, so no two ids are ever built at once.
  hasher.reset(ALERT_ID_SEED);
  hasher.string(ruleId, TAG_LATIN1, TAG_UTF16);
  hasher.string(flightKey, TAG_LATIN1, TAG_UTF16);
  // The count keeps `[a, b]` apart from any other split of the same words.
  hasher.word(eventIds.length);
  for (const id of eventIds) hasher.string(id, TAG_LATIN1, TAG_UTF16);
  return hasher.digestBase64url();
}
