/**
 * Real v4 flight records captured by others (test/fixtures/real-api/, sources in its
 * README): real shapes for tests that need an upstream's records rather than invented ones.
 */
import { readFileSync } from "node:fs";
import type { Flight } from "../../src/api/types.js";

/** The records of one capture, parsed afresh for each caller (tests change them in place). */
export function realFlights(): Flight[] {
  const capture = JSON.parse(
    readFileSync(
      new URL(
        "../fixtures/real-api/flights-benbugraer-plane-scape-appfellas.json",
        import.meta.url,
      ),
      "utf8",
    ),
  ) as { records: Flight[] };
  return capture.records;
}
