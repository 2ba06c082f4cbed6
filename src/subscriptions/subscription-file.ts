/**
 * Subscription files, what `subscriptions import` reads and `export` writes: NDJSON (one
 * JSON object a line, with the fields `subscriptions add` takes) or CSV (a header row
 * naming the columns, labels as `name=value;name=value`). Reading turns each line into
 * the input checkSubscription takes, or into the problems that keep it from being read,
 * each naming its line and field; writing turns a stored subscription into a line that
 * reads back as the same subscription.
 */
import { suggestionHint } from "../rules/read/did-you-mean.js";
import { CsvRowReader, csvRow } from "./csv-rows.js";
import { INPUT_FIELDS, type Subscription, type SubscriptionInput } from "./subscription.js";

/** The formats of subscription files. */
export const FILE_FORMATS = ["ndjson", "csv"] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** The fields of a line: NDJSON keys, CSV columns (in the order export writes them). */
export const FILE_FIELDS = ["id", ...INPUT_FIELDS, "status"] as const;

/** What export writes for a webhook's secret unless asked for secrets (import keeps the stored one for it). */
export const MASKED_SECRET = "***";

/** A line's fields: a subscription's input, and the id it may give. */
export interface LineInput extends SubscriptionInput {
  id?: unknown;
}

/** What is wrong with a line: a field of it (absent: the line as a whole), and why. */
export interface LineProblem {
  field?: string;
  message: string;
}

/** One record of a file: the line it starts on, and its fields or its problems. */
export type FileRecord =
  | { line: number; input: LineInput }
  | { line: number; problems: LineProblem[] };

/** The format a file's name says (`.csv`; `.ndjson`, `.jsonl`, `.json`), if any. */
export function formatOfFileName(name: string): FileFormat | undefined {
  const ext = /\.([a-z]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (ext === "csv") return "csv";
  if (ext === "ndjson" || ext === "jsonl" || ext === "json") return "ndjson";
  return undefined;
}

/** The records of a file, read from its lines (blank lines are skipped). */
export function readRecords(
  lines: AsyncIterable<string>,
  format: FileFormat,
): AsyncGenerator<FileRecord> {
  return format === "csv" ? readCsv(lines) : readNdjson(lines);
}

async function* readNdjson(lines: AsyncIterable<string>): AsyncGenerator<FileRecord> {
  let line = 0;
  for await (const raw of lines) {
    line++;
    const text = line === 1 ? withoutBom(raw) : raw;
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { line, problems: [{ message: `is not JSON: ${(err as Error).message}` }] };
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      yield {
        line,
        problems: [{ message: 'is not a JSON object such as {"flight": "KL1001", …}' }],
      };
      continue;
    }
    const unknown = Object.keys(value).filter((k) => !isField(k));
    if (unknown.length > 0) {
      yield { line, problems: unknown.map(notAField) };
      continue;
    }
    yield { line, input: value as LineInput };
  }
}

async function* readCsv(lines: AsyncIterable<string>): AsyncGenerator<FileRecord> {
  const reader = new CsvRowReader();
  let header: string[] | undefined;
  let line = 0;
  let start = 0;
  for await (const raw of lines) {
    line++;
    const text = line === 1 ? withoutBom(raw) : raw;
    if (!reader.unfinished) {
      if (text.trim() === "") continue;
      start = line;
    }
    const row = reader.push(text);
    if (row === undefined) continue;
    if (header === undefined) {
      // Column names in any case (spreadsheets capitalise), as the fields spell them.
      header = row.map((cell) => {
        const name = cell.trim();
        return FILE_FIELDS.find((f) => f.toLowerCase() === name.toLowerCase()) ?? name;
      });
      const problems = headerProblems(header);
      if (problems.length > 0) {
        // Every row would be read wrong: the header is the one problem.
        yield { line: start, problems };
        return;
      }
      continue;
    }
    yield { line: start, ...rowInput(header, row) };
  }
  if (reader.unfinished) {
    yield {
      line: start,
      problems: [{ message: "has a quoted field that is not closed before the end of the file" }],
    };
  }
}

function headerProblems(header: readonly string[]): LineProblem[] {
  const problems: LineProblem[] = header
    .filter((column) => !isField(column))
    .map((column) => ({
      field: column,
      message: `is not a column: ${suggestionHint(column, FILE_FIELDS)}`,
    }));
  const twice = header.filter((column, i) => header.indexOf(column) !== i);
  for (const column of new Set(twice)) {
    problems.push({ field: column, message: "is a column twice" });
  }
  return problems;
}

/** A CSV row's input (an empty cell is an absent field), or its problems. */
function rowInput(
  header: readonly string[],
  row: readonly string[],
): { input: LineInput } | { problems: LineProblem[] } {
  if (row.length !== header.length) {
    return {
      problems: [
        { message: `has ${row.length} cells where the header has ${header.length} columns` },
      ],
    };
  }
  const input: Record<string, unknown> = {};
  const problems: LineProblem[] = [];
  header.forEach((column, i) => {
    const cell = row[i] as string;
    if (cell.trim() === "") return;
    if (column === "labels") {
      const labels = parseLabelCell(cell);
      if (typeof labels === "string") problems.push({ field: "labels", message: labels });
      else input.labels = labels;
    } else if (column === "changes") {
      try {
        input.changes = JSON.parse(cell);
      } catch (err) {
        problems.push({
          field: "changes",
          message: `is not JSON (${(err as Error).message}): write a list such as ["gate", "belt"]`,
        });
      }
    } else {
      input[column] = cell;
    }
  });
  return problems.length > 0 ? { problems } : { input: input as LineInput };
}

/**
 * `name=value;name=value` as labels, or why not. In a value, `%3B` stands for `;` and
 * `%25` for `%` (export writes them so).
 */
export function parseLabelCell(cell: string): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const part of cell.split(";")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    if (eq <= 0) return `"${part}" is not name=value: write labels as booking=X7Q2LM;seat=12A`;
    labels[part.slice(0, eq).trim()] = part
      .slice(eq + 1)
      .replace(/%(3B|25)/gi, (code) => (code === "%25" ? "%" : ";"));
  }
  return labels;
}

/** Labels as one CSV cell (parseLabelCell reads it back). */
export function labelCell(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([name, value]) => `${name}=${value.replace(/%/g, "%25").replace(/;/g, "%3B")}`)
    .join(";");
}

/** The header line of a format, if it has one. */
export function fileHeader(format: FileFormat): string | undefined {
  return format === "csv" ? csvRow(FILE_FIELDS) : undefined;
}

/** A stored subscription as a line of a file (webhook secrets masked unless `withSecrets`). */
export function fileLine(s: Subscription, format: FileFormat, withSecrets: boolean): string {
  const fields = lineFields(s, withSecrets);
  if (format === "ndjson") return JSON.stringify(fields);
  return csvRow(
    FILE_FIELDS.map((name) => {
      const value = fields[name];
      if (value === undefined) return "";
      if (name === "labels") return labelCell(value as Record<string, string>);
      // Reminders as words with commas, as a CSV cell is read back.
      if (name === "remind") return (value as string[]).join(", ");
      return typeof value === "string" ? value : JSON.stringify(value);
    }),
  );
}

/** The fields of a line, as `subscriptions add` takes them. */
function lineFields(s: Subscription, withSecrets: boolean): Record<string, unknown> {
  const channel =
    s.channel.type === "email"
      ? { email: s.channel.to }
      : {
          webhook: s.channel.url,
          ...(s.channel.secret !== undefined
            ? { secret: withSecrets ? s.channel.secret : MASKED_SECRET }
            : {}),
        };
  return {
    id: s.id,
    flight: s.flight,
    date: s.date,
    ...(s.direction !== undefined ? { direction: s.direction } : {}),
    ...channel,
    ...(s.changes !== undefined ? { changes: s.changes } : { preset: s.preset }),
    ...(Object.keys(s.labels).length > 0 ? { labels: s.labels } : {}),
    ...(s.language !== undefined ? { language: s.language } : {}),
    ...(s.quietHours !== undefined ? { quietHours: s.quietHours } : {}),
    ...(s.remind !== undefined ? { remind: s.remind } : {}),
    status: s.status,
  };
}

function isField(name: string): boolean {
  return (FILE_FIELDS as readonly string[]).includes(name);
}

function notAField(name: string): LineProblem {
  return { field: name, message: `is not a field: ${suggestionHint(name, FILE_FIELDS)}` };
}

function withoutBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}
