import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiTimeFormatter, cachedOffsets } from "../../src/simulator/api-time-formatter.js";
import { formatApiDateTime, offsetMinutes } from "../../src/time/local-time.js";

// Zones with whole-hour, half-hour and 45-minute offsets and DST steps of 30 minutes.
const ZONES = [
  "Europe/Amsterdam",
  "America/New_York",
  "America/St_Johns",
  "Australia/Lord_Howe",
  "Asia/Kathmandu",
  "UTC",
];
const FROM = Date.UTC(2000, 0, 1);
const TO = Date.UTC(2100, 0, 1);

describe("apiTimeFormatter", () => {
  it("formats exactly like formatApiDateTime", () => {
    const formatters = new Map(ZONES.map((z) => [z, apiTimeFormatter(z)]));
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), fc.integer({ min: FROM, max: TO }), (zone, ms) => {
        expect(formatters.get(zone)?.(ms)).toBe(formatApiDateTime(ms, zone));
      }),
      { numRuns: 3000 },
    );
  });

  it("is exact around the 2026 Amsterdam DST changes, millisecond by millisecond at the jump", () => {
    const format = apiTimeFormatter("Europe/Amsterdam");
    for (const jump of [Date.UTC(2026, 2, 29, 1), Date.UTC(2026, 9, 25, 1)]) {
      for (let ms = jump - 3; ms <= jump + 3; ms++) {
        expect(format(ms)).toBe(formatApiDateTime(ms, "Europe/Amsterdam"));
      }
      for (let ms = jump - 2 * 3_600_000; ms <= jump + 2 * 3_600_000; ms += 61_001) {
        expect(format(ms)).toBe(formatApiDateTime(ms, "Europe/Amsterdam"));
      }
    }
    expect(format(Date.UTC(2026, 2, 29, 0, 59, 59, 999))).toBe("2026-03-29T01:59:59.999+01:00");
    expect(format(Date.UTC(2026, 2, 29, 1))).toBe("2026-03-29T03:00:00.000+02:00");
  });

  it("looks offsets up like offsetMinutes, also inside hours that hold a transition", () => {
    const offsets = cachedOffsets("Australia/Lord_Howe");
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) }), (ms) => {
        expect(offsets(ms)).toBe(offsetMinutes(ms, "Australia/Lord_Howe"));
      }),
      { numRuns: 2000 },
    );
  });
});
