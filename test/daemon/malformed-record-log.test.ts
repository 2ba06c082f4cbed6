/**
 * The daemon's line for a skipped malformed record: flight id, name and field, what is
 * wrong, that the flight keeps its last good snapshot; at most ten a minute (on an
 * injected clock), the next one saying how many were held back.
 */
import { describe, expect, it } from "vitest";
import type { MalformedReport } from "../../src/api/client-options.js";
import { MalformedRecordLog } from "../../src/daemon/malformed-record-log.js";
import { captureLog } from "../log/log-capture.js";

const report = (n: number): MalformedReport => ({
  index: n,
  id: `14071695248624656${n}`,
  field: "terminal",
  problems: ["terminal: Invalid input: expected number, received string"],
  identity: { flightName: "DL7488", mainFlight: "HV5662", flightDirection: "A" },
  url: "http://127.0.0.1:8080/public/public-flights/v4/flights?page=0",
});

describe("MalformedRecordLog", () => {
  it("writes one warning per record with its id, name and field, up to ten a minute", () => {
    const capture = captureLog();
    let now = 0;
    const log = new MalformedRecordLog(capture.logger, { now: () => now });
    for (let n = 0; n < 25; n++) log.record(report(n % 10));
    const entries = capture.entries();
    expect(entries).toHaveLength(10);
    expect(entries[0]).toMatchObject({
      level: "warn",
      flightId: "140716952486246560",
      flightName: "DL7488",
      field: "terminal",
      problems: ["terminal: Invalid input: expected number, received string"],
      msg: "skipped a malformed upstream record (id 140716952486246560 DL7488, field terminal); its flight keeps its last good snapshot",
    });
    expect(entries[0]?.suppressed).toBeUndefined();

    now += 60_000;
    log.record(report(3));
    const next = capture.entries().at(-1);
    expect(next).toMatchObject({ flightId: "140716952486246563", suppressed: 15 });
    expect(String(next?.msg)).toContain("(15 more held back since the last line)");
  });

  it("says so when the record has no readable id", () => {
    const capture = captureLog();
    const log = new MalformedRecordLog(capture.logger, { now: () => 0 });
    log.record({ index: 4, field: "record", problems: ["expected a record object"], url: "u" });
    expect(capture.entries()[0]?.msg).toBe(
      "skipped a malformed upstream record (#4, no readable id, field record); its flight keeps its last good snapshot",
    );
  });
});
