/**
 * The text format as a pure function of a parsed entry, and the stream that applies it
 * to pino's JSON lines.
 */
import { describe, expect, it } from "vitest";
import { formatTextLine, TextFormatStream } from "../../src/log/text-format.js";

const TIME = "2025-03-30T00:59:58.250Z";
/** The clock the format shows: local time, like a terminal's reader expects. */
const local = (() => {
  const d = new Date(TIME);
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
})();

describe("formatTextLine", () => {
  it("time, padded level, message, context fields in their order, then the rest", () => {
    const line = formatTextLine({
      level: "info",
      time: TIME,
      pid: 1,
      hostname: "h",
      service: "flightwatch",
      changes: 3,
      ruleId: "gate",
      role: "poller",
      msg: "poll 3 incremental",
      notificationId: "n_1",
      flightId: "123456789012345678",
    });
    expect(line).toBe(
      `${local} INFO  poll 3 incremental role=poller flightId=123456789012345678 ruleId=gate notificationId=n_1 changes=3`,
    );
  });

  it("quotes values that would be ambiguous bare; objects as JSON", () => {
    const line = formatTextLine({
      level: "warn",
      time: TIME,
      msg: "x",
      reason: "no route",
      empty: "",
      eq: "a=b",
      quote: 'say "hi"',
      n: null,
      ok: true,
      where: { host: "h", port: 1 },
    });
    expect(line).toBe(
      `${local} WARN  x reason="no route" empty="" eq="a=b" quote="say \\"hi\\"" n=null ok=true where={"host":"h","port":1}`,
    );
  });

  it("one entry stays one line, and control characters cannot drive the terminal", () => {
    const line = formatTextLine({
      level: "error",
      time: TIME,
      msg: "2 problems:\nrules/a.yaml:1:1 bad\u001b[2J",
      field: "a\u001b[31mred",
    });
    expect(line).not.toContain("\n");
    expect(line).not.toContain("\u001b");
    expect(line).toBe(
      `${local} ERROR 2 problems:\\nrules/a.yaml:1:1 bad\\u001b[2J field="a\\u001b[31mred"`,
    );
  });

  it("an error shows as its chain of type, message and code, last on the line", () => {
    const line = formatTextLine({
      level: "fatal",
      time: TIME,
      err: {
        type: "FlightwatchError",
        code: "FW_ERR_REDIS_UNAVAILABLE",
        message: "REDIS_URL: no Redis",
        stack: "FlightwatchError: …\n    at x",
        cause: { type: "Error", message: "connect ECONNREFUSED" },
      },
      msg: "cannot start",
      role: "all",
    });
    expect(line).toBe(
      `${local} FATAL cannot start role=all err="FlightwatchError: REDIS_URL: no Redis [FW_ERR_REDIS_UNAVAILABLE] ← Error: connect ECONNREFUSED"`,
    );
  });

  it("an entry without a usable time or level still prints", () => {
    expect(formatTextLine({ msg: "hi" })).toBe("--:--:--.--- ?     hi");
  });
});

describe("TextFormatStream", () => {
  it("formats each JSON line of a chunk; anything else passes as it came", () => {
    const written: string[] = [];
    const stream = new TextFormatStream({ write: (s: string) => written.push(s) });
    stream.write(
      `{"level":"info","time":"${TIME}","msg":"a"}\n{"level":"warn","time":"${TIME}","msg":"b"}\n`,
    );
    stream.write("not json\n");
    expect(written.join("")).toBe(`${local} INFO  a\n${local} WARN  b\nnot json\n`);
  });

  it("flushes its destination when that can flush", async () => {
    let flushed = false;
    const stream = new TextFormatStream({
      write: () => undefined,
      flush: (cb: () => void) => {
        flushed = true;
        cb();
      },
    } as never);
    await new Promise<void>((resolve) => stream.flush(() => resolve()));
    expect(flushed).toBe(true);
    const plain = new TextFormatStream({ write: () => undefined });
    await new Promise<void>((resolve) => plain.flush(() => resolve()));
  });
});
