import { describe, expect, it } from "vitest";
import type { MalformedRecord } from "../../src/api/response-body.js";
import { sparedFlights } from "../../src/detect/spared-flights.js";

const ZONE = "Europe/Amsterdam";

const record = (identity: MalformedRecord["identity"], id?: string): MalformedRecord => ({
  index: 0,
  field: "terminal",
  problems: ["terminal: expected number, received string"],
  ...(id === undefined ? {} : { id }),
  ...(identity === undefined ? {} : { identity }),
});

describe("sparedFlights", () => {
  it("nothing skipped: nothing to spare, every removal stands", () => {
    expect(sparedFlights([], ZONE)).toEqual({ keys: new Set(), ids: new Set() });
  });

  it("ties each record to the key the codeshare fold gives it: a codeshare spares its operating flight", () => {
    const spared = sparedFlights(
      [
        record(
          {
            id: "140716952486246564",
            flightName: "DL7488",
            mainFlight: "HV5662",
            flightDirection: "A",
            scheduleDate: "2024-09-24",
          },
          "140716952486246564",
        ),
        // No scheduleDate: the local date of its scheduled time (00:30 local is the 24th).
        record({
          flightName: "OR3057",
          flightDirection: "A",
          scheduleDateTime: "2024-09-23T22:30:00.000Z",
        }),
      ],
      ZONE,
    );
    expect(spared).toEqual({
      keys: new Set(["A:2024-09-24:HV5662", "A:2024-09-24:OR3057"]),
      ids: new Set(["140716952486246564"]),
    });
  });

  it.each([
    ["no identity (its identifying fields are broken)", undefined],
    ["no direction", { flightName: "KL1", scheduleDate: "2024-09-24" }],
    ["no schedule date", { flightName: "KL1", flightDirection: "A" as const }],
    ["no name and no id", { flightDirection: "A" as const, scheduleDate: "2024-09-24" }],
  ])("one record that cannot be tied to its flight (%s) spares every flight", (_, identity) => {
    const tied = record({ flightName: "KL2", flightDirection: "D", scheduleDate: "2024-09-24" });
    expect(sparedFlights([tied, record(identity, "42")], ZONE)).toBeUndefined();
  });
});
