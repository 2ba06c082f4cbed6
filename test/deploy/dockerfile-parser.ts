/**
 * A small Dockerfile parser: enough of the syntax to read our own Dockerfile the way
 * the Docker builder does (line continuations, comments, `--flag=value` options, exec
 * and shell forms, stages), so the replay test can check its shape and run it without
 * a Docker engine. Instructions it does not know are kept, not rejected: the replay
 * decides what it can run.
 */

/** One instruction, with its options split off the arguments. */
export interface Instruction {
  /** Upper case: FROM, RUN, COPY, … */
  keyword: string;
  /** 1-based line where the instruction starts. */
  line: number;
  /** `--name=value` options before the arguments, by name (a name may repeat). */
  flags: Record<string, string[]>;
  /** The arguments after the options, continuation lines joined. */
  args: string;
}

/** One build stage: its FROM line and the instructions that follow it. */
export interface Stage {
  /** Base image reference as written (`node:24.20-trixie-slim`). */
  base: string;
  /** The `AS name`, when given. */
  name?: string;
  line: number;
  instructions: Instruction[];
}

/** A parsed Dockerfile: the stages in order (the last one is the image). */
export interface Dockerfile {
  stages: Stage[];
}

/** A command as written: exec form (a JSON array) or shell form (run by `/bin/sh -c`). */
export type CommandForm = { exec: string[] } | { shell: string };

const FLAG_KEYWORDS = new Set(["FROM", "RUN", "COPY", "ADD", "HEALTHCHECK"]);

/** Parses Dockerfile text; throws an Error naming the line on what it cannot read. */
export function parseDockerfile(text: string): Dockerfile {
  const stages: Stage[] = [];
  for (const { line, text: body } of logicalLines(text)) {
    const match = /^(\S+)\s*(.*)$/s.exec(body);
    if (match === null) continue;
    const keyword = match[1]!.toUpperCase();
    const { flags, rest } = FLAG_KEYWORDS.has(keyword)
      ? splitFlags(match[2]!)
      : { flags: {}, rest: match[2]! };
    const instruction: Instruction = { keyword, line, flags, args: rest.trim() };
    if (keyword === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (from === null) throw new Error(`Dockerfile line ${line}: cannot read FROM ${rest}`);
      stages.push({
        base: from[1]!,
        ...(from[2] ? { name: from[2] } : {}),
        line,
        instructions: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      throw new Error(`Dockerfile line ${line}: ${keyword} before the first FROM`);
    }
    stage.instructions.push(instruction);
  }
  return { stages };
}

/** Joins continuation lines and drops comments and blank lines, as the builder does. */
function* logicalLines(text: string): Generator<{ line: number; text: string }> {
  const lines = text.split(/\r?\n/);
  let start = 0;
  let parts: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    // A comment line is dropped even in the middle of a continued instruction.
    if (/^\s*#/.test(raw)) continue;
    if (parts.length === 0) {
      if (raw.trim() === "") continue;
      start = i + 1;
    }
    const continued = /\\\s*$/.test(raw);
    parts.push(continued ? raw.replace(/\\\s*$/, "") : raw);
    if (!continued) {
      yield { line: start, text: parts.join(" ").trim() };
      parts = [];
    }
  }
  if (parts.length > 0) yield { line: start, text: parts.join(" ").trim() };
}

function splitFlags(text: string): { flags: Record<string, string[]>; rest: string } {
  const flags: Record<string, string[]> = {};
  let rest = text.trimStart();
  for (;;) {
    const flag = /^--([a-z-]+)(?:=(\S*))?(?:\s+|$)/.exec(rest);
    if (flag === null) break;
    const name = flag[1]!;
    flags[name] = [...(flags[name] ?? []), flag[2] ?? "true"];
    rest = rest.slice(flag[0].length);
  }
  return { flags, rest };
}

/** Reads the exec form (a JSON array of strings) or the shell form of a command. */
export function commandForm(args: string): CommandForm {
  const text = args.trim();
  if (text.startsWith("[")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === "string")) {
        return { exec: parsed };
      }
    } catch {
      // Not valid JSON: the builder then runs it in the shell form, and so do we.
    }
  }
  return { shell: text };
}

/** The options and command of a HEALTHCHECK (`NONE` gives undefined). */
export function healthcheckOf(
  instruction: Instruction,
): { options: Record<string, string>; command: CommandForm } | undefined {
  if (/^NONE$/i.test(instruction.args)) return undefined;
  const match = /^CMD\s+(.*)$/is.exec(instruction.args);
  if (match === null) {
    throw new Error(`Dockerfile line ${instruction.line}: HEALTHCHECK needs CMD or NONE`);
  }
  const options: Record<string, string> = {};
  for (const [name, values] of Object.entries(instruction.flags)) options[name] = values.at(-1)!;
  return { options, command: commandForm(match[1]!) };
}

/** `KEY=value` pairs of an ENV (or the legacy `KEY value` form), quotes removed. */
export function envPairs(instruction: Instruction): Array<[string, string]> {
  const words = shellWords(instruction.args);
  if (words.length > 0 && !words[0]!.includes("=")) {
    // Legacy form: one variable, the rest of the line is its value.
    const [name, ...value] = instruction.args.trim().split(/\s+/);
    return [[name!, value.join(" ")]];
  }
  return words.map((word) => {
    const eq = word.indexOf("=");
    if (eq <= 0) throw new Error(`Dockerfile line ${instruction.line}: cannot read ENV ${word}`);
    return [word.slice(0, eq), word.slice(eq + 1)];
  });
}

/** Splits on unquoted whitespace; double and single quotes and backslashes as in sh. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The stage's instructions with this keyword, in order. */
export function instructionsOf(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The last instruction with this keyword (the one that counts for CMD, USER, …). */
export function lastOf(stage: Stage, keyword: string): Instruction | undefined {
  return instructionsOf(stage, keyword).at(-1);
}
