/**
 * Conformance: the sort rules ("comma-separated list of fields, each prefixed with
 * `+`, `-` or a space; `-` means descending") for every allowed field of every
 * paged collection. The first pages of each sorted result are checked for order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SORT, parseSort, SORT_FIELDS } from "../../src/api/contract.js";
import { collect, collectEnds, expectOrdered, sortValue } from "./support.js";
import { type ConformanceTarget, startTarget } from "./target.js";

let t: ConformanceTarget;
let days: string;
beforeAll(async () => {
  t = await startTarget();
  // Three schedule dates around today, so date sorts see more than one value.
  const today = (await collect(t, "/flights", "flights", 1))[0]?.scheduleDate ?? "";
  const shift = (n: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  days = `fromScheduleDate=${shift(-1)}&toScheduleDate=${shift(1)}&`;
});
const scope = (collection: string) => (collection === "flights" ? days : "");
afterAll(() => t.close());

const COLLECTIONS = [
  ["flights", "/flights", "flights"],
  ["airlines", "/airlines", "airlines"],
  ["aircraftTypes", "/aircrafttypes", "aircraftTypes"],
  ["destinations", "/destinations", "destinations"],
] as const;

/** `+` must be sent as %2B: a literal `+` in a query decodes to a space (also ascending). */
const PREFIXES = [
  ["%2B", false, "+"],
  ["-", true, "-"],
  ["%20", false, "space"],
  ["", false, "no prefix"],
] as const;

describe("sorting", () => {
  for (const [collection, path, envelope] of COLLECTIONS) {
    for (const field of SORT_FIELDS[collection]) {
      for (const [prefix, descending, label] of PREFIXES) {
        it(`[Sort rules: ${collection} by ${field}, ${label}${descending ? " = descending" : ""}]`, async () => {
          const records = await collectEnds(
            t,
            `${path}?${scope(collection)}sort=${prefix}${field}`,
            envelope,
          );
          expect(records.length).toBeGreaterThan(0);
          if (t.simulator) {
            // The simulator's data has values for every sort field: the check is not vacuous.
            const valued = records.filter((r) => sortValue(r, field, t.zone) !== undefined);
            expect(new Set(valued.map((r) => sortValue(r, field, t.zone))).size).toBeGreaterThan(1);
          }
          expectOrdered(records, [{ field, descending }], t.zone, t.simulator);
        });
      }
    }

    it(`[Sort rules: ${collection} default ${DEFAULT_SORT[collection]}]`, async () => {
      const records = await collect<Record<string, unknown>>(t, path, envelope, 2);
      const parsed = parseSort(collection, DEFAULT_SORT[collection]);
      if (!parsed.ok) throw new Error(parsed.reason);
      expectOrdered(records, parsed.terms, t.zone, t.simulator);
    });
  }

  it("[Sort rules: a literal + decodes to a space, both ascending] sort=+flightName equals sort=%2BflightName", async () => {
    const plus = await collect(t, "/flights?sort=+flightName", "flights", 1);
    const encoded = await collect(t, "/flights?sort=%2BflightName", "flights", 1);
    expect(plus.map((f) => f.id)).toEqual(encoded.map((f) => f.id));
  });

  it("[Sort rules: comma-separated list] flights by flightDirection, then -scheduleDateTime", async () => {
    const terms = [
      { field: "flightDirection", descending: false },
      { field: "scheduleDateTime", descending: true },
    ];
    const records = await collect<Record<string, unknown>>(
      t,
      "/flights?sort=flightDirection,-scheduleDateTime",
      "flights",
      3,
    );
    expectOrdered(records, terms, t.zone, t.simulator);
  });

  it("[Sort rules: comma-separated list] aircraft types by -iataMain, +iataSub", async () => {
    const records = await collect<Record<string, unknown>>(
      t,
      "/aircrafttypes?sort=-iataMain,%2BiataSub",
      "aircraftTypes",
      3,
    );
    expectOrdered(
      records,
      [
        { field: "iataMain", descending: true },
        { field: "iataSub", descending: false },
      ],
      t.zone,
      t.simulator,
    );
  });
});
