/**
 * CSV as RFC 4180 writes it, read a line at a time (import files are streamed as lines,
 * and problems are named by line): fields are separated by commas; a field in double
 * quotes may hold commas, line breaks and quotes (doubled), so one row may span lines.
 * A quote inside an unquoted field is an ordinary character, as spreadsheets write it.
 */

/** Rows from lines: `push` each line, and it gives the row its last line completes. */
export class CsvRowReader {
  #fields: string[] = [];
  #field = "";
  #quoted = false;

  /** Whether a row is waiting for more lines (a quoted field not yet closed). */
  get unfinished(): boolean {
    return this.#quoted;
  }

  /** Reads one line (without its line break); the row, when this line ends one. */
  push(line: string): string[] | undefined {
    // Most rows quote nothing: one split.
    if (!this.#quoted && !line.includes('"')) return line.split(",");
    if (this.#quoted) this.#field += "\n";
    let start = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (this.#quoted) {
        if (c !== '"') continue;
        this.#field += line.slice(start, i);
        if (line[i + 1] === '"') {
          this.#field += '"';
          i++;
        } else {
          this.#quoted = false;
        }
        start = i + 1;
      } else if (c === ",") {
        this.#fields.push(this.#field + line.slice(start, i));
        this.#field = "";
        start = i + 1;
      } else if (c === '"' && i === start && this.#field === "") {
        this.#quoted = true;
        start = i + 1;
      }
    }
    this.#field += line.slice(start);
    if (this.#quoted) return undefined;
    const row = [...this.#fields, this.#field];
    this.#fields = [];
    this.#field = "";
    return row;
  }
}

/** A field as CSV writes it: quoted when it holds a comma, a quote, a line break or edge spaces. */
export function csvField(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A row of fields as one CSV line (a line break inside a quoted field included). */
export function csvRow(fields: readonly string[]): string {
  return fields.map(csvField).join(",");
}
