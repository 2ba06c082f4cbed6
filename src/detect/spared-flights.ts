/**
 * Which flights a reconciliation must not report removed because their records were
 * skipped as malformed. A skipped record is not a removal: its flight keeps its last
 * good snapshot. When every skipped record can be tied to its physical flight, only
 * those flights are spared and every other removal stands; when one cannot, nobody
 * knows which flight it was, and no removal of this read can be trusted.
 */
import type { MalformedRecord } from "../api/response-body.js";
import { physicalFlightKey } from "../diff/codeshare-fold.js";

/** Flights to keep whatever the read says; undefined: keep every one (no removal this time). */
export interface SparedFlights {
  /** Physical flight keys of the skipped records. */
  keys: ReadonlySet<string>;
  /** Their upstream ids, for snapshots taken from a record with that id. */
  ids: ReadonlySet<string>;
}

/**
 * The flights of `malformed` records, or undefined when one of them cannot be tied to
 * its flight: its identifying fields (names, direction, schedule date) are missing or
 * themselves malformed. The key is the one the codeshare fold gives the record, so a
 * codeshare record spares its operating flight too.
 */
export function sparedFlights(
  malformed: readonly MalformedRecord[],
  zone: string,
): SparedFlights | undefined {
  const keys = new Set<string>();
  const ids = new Set<string>();
  for (const record of malformed) {
    const key = record.identity ? physicalFlightKey(record.identity, zone) : undefined;
    // "?" stands for an unknown direction or date: a key no snapshot has.
    if (key === undefined || key.startsWith("?:") || key.split(":")[1] === "?") return undefined;
    keys.add(key);
    if (record.id !== undefined) ids.add(record.id);
  }
  return { keys, ids };
}
