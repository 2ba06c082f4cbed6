/**
 * Turns a rule file's text into its tree, or into positioned syntax problems. YAML and
 * JSON go through the same parser (JSON is YAML 1.2), so positions work alike; a `.json`
 * file must also be strict JSON. Large plain files take the fast reader (fast-yaml.ts),
 * everything else — and every file with an error — the `yaml` package.
 */
import { LineCounter, parseDocument, type YAMLError } from "yaml";
import type { RuleProblem } from "../../errors.js";
import { readFastYaml } from "./fast-yaml.js";
import { fromYamlDocument, LineTable, type TreeNode } from "./yaml-tree.js";

/** A parsed rule file: its tree (undefined when empty or unparsable) and syntax problems. */
export interface RuleDocument {
  root?: TreeNode;
  lines: LineTable;
  problems: RuleProblem[];
}

/** Parses one rule file; `file` (as given) names it in problems and picks JSON by extension. */
export function parseRuleDocument(text: string, file: string): RuleDocument {
  const json = file.toLowerCase().endsWith(".json");
  const lines = new LineTable(text);
  const fast = readFastYaml(text, { json });
  if (fast !== undefined) return { root: fast, lines, problems: [] };
  const doc = parseDocument(text, {
    lineCounter: new LineCounter(),
    merge: true,
    prettyErrors: true,
  });
  if (doc.errors.length > 0) {
    return { lines, problems: doc.errors.map((err) => syntaxProblem(err, file, json)) };
  }
  if (json) {
    const problem = strictJsonProblem(text, file, lines);
    if (problem) return { lines, problems: [problem] };
  }
  const root = fromYamlDocument(doc);
  return root === undefined ? { lines, problems: [] } : { root, lines, problems: [] };
}

function syntaxProblem(err: YAMLError, file: string, json: boolean): RuleProblem {
  const at = err.linePos?.[0];
  // yaml's message repeats the position and quotes the line: keep the first sentence.
  const message = (err.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
  const problem: RuleProblem = {
    file,
    line: at?.line ?? 0,
    column: at?.col ?? 0,
    path: "",
    message: `${json ? "invalid JSON" : "invalid YAML"}: ${message}`,
  };
  const hint = SYNTAX_HINTS[err.code];
  if (hint) problem.hint = hint;
  return problem;
}

const SYNTAX_HINTS: Partial<Record<string, string>> = {
  DUPLICATE_KEY: "write each key once per mapping",
  TAB_AS_INDENT: "indent with spaces, not tabs",
  BAD_INDENT: "line up keys of one mapping at the same column",
  MULTIPLE_DOCS: "write one document per file (no second `---`)",
};

/** JSON the YAML parser accepts but JSON does not (comments, trailing commas, bare words). */
function strictJsonProblem(text: string, file: string, lines: LineTable): RuleProblem | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const at = /at position (\d+)/.exec(message);
    const lineCol = /\(line (\d+) column (\d+)\)/.exec(message);
    const position = lineCol
      ? { line: Number(lineCol[1]), column: Number(lineCol[2]) }
      : lines.position(at ? Number(at[1]) : 0);
    return {
      file,
      ...position,
      path: "",
      message: `invalid JSON: ${message.replace(/ in JSON at position \d+.*$/, "").replace(/ \(line \d+ column \d+\)$/, "")}`,
      hint: "a .json file must be strict JSON (no comments, trailing commas or unquoted keys); name it .yaml for YAML",
    };
  }
}
