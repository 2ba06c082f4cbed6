/**
 * The optional config file (`--config <file>` or FLIGHTWATCH_CONFIG): a YAML mapping of
 * the variables of config-variables.ts to scalar values, e.g. `POLL_INTERVAL: 10s`.
 * Keys may be written in lower case. The environment wins over the file, so one file
 * can serve several machines that differ in a variable or two.
 */
import { readFileSync } from "node:fs";
import { isMap, isScalar, LineCounter, parseDocument } from "yaml";
import { ConfigProblems } from "../errors.js";
import { didYouMean } from "../rules/read/did-you-mean.js";
import { CONFIG_VARIABLE_NAMES } from "./config-variables.js";

/** Variables set by a config file, by canonical (upper-case) name. */
export type ConfigFileValues = Record<string, string>;

/** A config file's values and where each was set (`file:line`), for messages about them. */
export interface ConfigFileRead {
  values: ConfigFileValues;
  /** `file:line` of each variable's key, by canonical name. */
  where: Record<string, string>;
}

/**
 * Reads a config file. Every problem (unreadable file, bad YAML, unknown key, a value
 * that is not a scalar) is reported at once, each naming the file and line.
 */
export function readConfigFile(file: string): ConfigFileValues {
  return readConfigFileWithLines(file).values;
}

/** Reads a config file as `readConfigFile` does, and also says where each value was set. */
export function readConfigFileWithLines(file: string): ConfigFileRead {
  const problems = new ConfigProblems();
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    problems.add(
      file,
      `cannot read the config file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
    problems.throwIfAny();
    return { values: {}, where: {} };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const pos = lines.linePos(offset ?? 0);
    return `${file}:${pos.line}`;
  };
  for (const error of doc.errors) problems.add(at(error.pos[0]), firstLine(error.message));
  problems.throwIfAny();
  const values: ConfigFileValues = {};
  const where: Record<string, string> = {};
  if (doc.contents === null) return { values, where };
  if (!isMap(doc.contents)) {
    problems.add(file, "expected a mapping of variables to values, e.g. `POLL_INTERVAL: 10s`");
    problems.throwIfAny();
  }
  const known = [...CONFIG_VARIABLE_NAMES];
  for (const pair of isMap(doc.contents) ? doc.contents.items : []) {
    const key = isScalar(pair.key) ? String(pair.key.value) : "";
    const place = at(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
    const name = key.toUpperCase();
    if (!CONFIG_VARIABLE_NAMES.has(name)) {
      const guess = didYouMean(name, known);
      const hint = guess ? `did you mean \`${guess}\`?` : "`flightwatch config` lists them all";
      problems.add(`${place} ${key}`, `is not a flightwatch setting; ${hint}`);
      continue;
    }
    if (
      !isScalar(pair.value) ||
      pair.value.value === null ||
      typeof pair.value.value === "object"
    ) {
      problems.add(`${place} ${key}`, "expected a single value (text, number or true/false)");
      continue;
    }
    values[name] = String(pair.value.value);
    where[name] = place;
  }
  problems.throwIfAny();
  return { values, where };
}

/** The parser's message without its code excerpt (and the colon that led into it). */
function firstLine(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/(?: at line \d+, column \d+)?:?\s*$/, "");
}
