import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CsvRowReader, csvRow } from "../../src/subscriptions/csv-rows.js";
import { checkSubscription, type Subscription } from "../../src/subscriptions/subscription.js";
import {
  type FileFormat,
  type FileRecord,
  fileHeader,
  fileLine,
  formatOfFileName,
  labelCell,
  parseLabelCell,
  readRecords,
} from "../../src/subscriptions/subscription-file.js";

const ZONE = "Europe/Amsterdam";
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

async function* linesOf(text: string): AsyncGenerator<string> {
  yield* text.split("\n");
}

async function records(text: string, format: FileFormat): Promise<FileRecord[]> {
  const out: FileRecord[] = [];
  for await (const r of readRecords(linesOf(text), format)) out.push(r);
  return out;
}

/** The rows a CSV reader makes of a text, fed a line at a time as an import file is. */
function rowsOf(text: string): string[][] {
  const reader = new CsvRowReader();
  const rows: string[][] = [];
  for (const line of text.split("\n")) {
    const row = reader.push(line);
    if (row) rows.push(row);
  }
  expect(reader.unfinished).toBe(false);
  return rows;
}

const SUBSCRIPTIONS: Subscription[] = [
  {
    id: "anna-x7q2lm",
    flight: "DL9870",
    date: "2026-11-27",
    preset: "essentials",
    channel: { type: "email", to: "anna@example.com" },
    language: "nl",
    labels: { booking: "X7Q2LM", note: 'seat 12A; window, "quiet" 100%' },
    status: "active",
    createdAt: 1,
  },
  {
    id: "app-kl1870",
    flight: "KL1870",
    date: "2026-11-28",
    changes: ["gate", { kind: "departure_time", delay_at_least: "30m" }],
    channel: { type: "webhook", url: "https://app.example.com/hooks/fw", secret: SECRET },
    labels: {},
    status: "unsubscribed",
    createdAt: 1,
  },
];

describe("CSV rows", () => {
  it("reads quoted fields: commas, doubled quotes, line breaks across lines", () => {
    expect(rowsOf('a,"b,c","say ""hi""",d')).toEqual([["a", "b,c", 'say "hi"', "d"]]);
    expect(rowsOf('1,"two\nlines",3\n4,5,6')).toEqual([
      ["1", "two\nlines", "3"],
      ["4", "5", "6"],
    ]);
    expect(rowsOf('x,,"",y')).toEqual([["x", "", "", "y"]]);
    // A quote inside an unquoted field is a character, as spreadsheets write it.
    expect(rowsOf('12" pizza,b')).toEqual([['12" pizza', "b"]]);
  });

  it("reads back any row it writes", () => {
    // Any text but a carriage return (readline ends a line at one).
    const cell = fc.string({ unit: "grapheme", maxLength: 20 }).filter((s) => !s.includes("\r"));
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 6 }), (fields) => {
        expect(rowsOf(csvRow(fields))).toEqual([fields]);
      }),
      { numRuns: 500 },
    );
  });

  it("writes labels as name=value;name=value, and reads them back whatever the values hold", () => {
    const labels = { booking: "X7Q2LM", note: "a;b=c %3B 100%" };
    expect(labelCell(labels)).toBe("booking=X7Q2LM;note=a%3Bb=c %253B 100%25");
    expect(parseLabelCell(labelCell(labels))).toEqual(labels);
    expect(parseLabelCell("booking=X7Q2LM; seat=12A")).toEqual({ booking: "X7Q2LM", seat: "12A" });
    expect(parseLabelCell("booking")).toMatch(/is not name=value/);
  });
});

describe("subscription files", () => {
  it("are told apart by their extension", () => {
    expect(formatOfFileName("passengers.CSV")).toBe("csv");
    expect(formatOfFileName("a.ndjson")).toBe("ndjson");
    expect(formatOfFileName("a.jsonl")).toBe("ndjson");
    expect(formatOfFileName("a.txt")).toBeUndefined();
  });

  for (const format of ["ndjson", "csv"] as const) {
    it(`read back what export writes (${format}), as the same subscriptions`, async () => {
      const text = [fileHeader(format), ...SUBSCRIPTIONS.map((s) => fileLine(s, format, true))]
        .filter((l) => l !== undefined)
        .join("\n");
      const read = await records(text, format);
      expect(read.map((r) => ("input" in r ? "ok" : r.problems))).toEqual(["ok", "ok"]);
      read.forEach((r, i) => {
        const s = SUBSCRIPTIONS[i] as Subscription;
        if (!("input" in r)) return;
        const checked = checkSubscription(r.input, { zone: ZONE }, String(r.input.id), 1);
        expect(checked).toEqual({ subscription: s });
      });
      // Without secrets, they are masked.
      expect(fileLine(SUBSCRIPTIONS[1] as Subscription, format, false)).not.toContain("whsec");
    });
  }

  it("name the line and the field of what they cannot read (NDJSON)", async () => {
    const text = [
      '{"flight": "KL1001", "date": "2026-11-27", "email": "a@example.com"}',
      "",
      '{"flight": "KL1001", "dat": "2026-11-27", "emial": "a@example.com"}',
      '{"flight": "KL1001",',
      '["KL1001"]',
    ].join("\n");
    const read = await records(text, "ndjson");
    expect(read.map((r) => r.line)).toEqual([1, 3, 4, 5]);
    expect(read[1]).toEqual({
      line: 3,
      problems: [
        { field: "dat", message: "is not a field: did you mean `date`?" },
        { field: "emial", message: "is not a field: did you mean `email`?" },
      ],
    });
    expect(read[2]).toMatchObject({
      problems: [{ message: expect.stringMatching(/^is not JSON/) }],
    });
    expect(read[3]).toMatchObject({
      problems: [{ message: expect.stringMatching(/not a JSON object/) }],
    });
  });

  it("name the line and the column of what they cannot read (CSV)", async () => {
    const text = [
      "\uFEFFid,Flight,date,email,labels,changes",
      "a,KL1001,2026-11-27,a@example.com,booking=X,",
      'b,KL1001,"2026-11-27',
      '",b@example.com,,',
      "c,KL1001,2026-11-27,c@example.com,booking,",
      "d,KL1001,2026-11-27,d@example.com,,[gate",
      "e,KL1001,2026-11-27",
      'f,KL1001,2026-11-27,f@example.com,,"[""gate""]"',
    ].join("\n");
    const read = await records(text, "csv");
    expect(read.map((r) => r.line)).toEqual([2, 3, 5, 6, 7, 8]);
    expect(read[0]).toEqual({
      line: 2,
      input: {
        id: "a",
        flight: "KL1001",
        date: "2026-11-27",
        email: "a@example.com",
        labels: { booking: "X" },
      },
    });
    expect(read[1]).toMatchObject({ line: 3, input: { date: "2026-11-27\n" } });
    expect(read[2]).toMatchObject({ problems: [{ field: "labels" }] });
    expect(read[3]).toMatchObject({ problems: [{ field: "changes" }] });
    expect(read[4]).toMatchObject({
      problems: [{ message: "has 3 cells where the header has 6 columns" }],
    });
    expect(read[5]).toMatchObject({ input: { changes: ["gate"] } });

    const header = await records("id,flight,dates,email,email\na,KL1,2026-11-27,x,y", "csv");
    expect(header).toEqual([
      {
        line: 1,
        problems: [
          { field: "dates", message: "is not a column: did you mean `date`?" },
          { field: "email", message: "is a column twice" },
        ],
      },
    ]);
    expect(await records('id,flight\na,"KL1', "csv")).toEqual([
      {
        line: 2,
        problems: [{ message: "has a quoted field that is not closed before the end of the file" }],
      },
    ]);
  });
});
