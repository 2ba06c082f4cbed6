/**
 * Turns a rule file's text into its tree, or into positioned syntax problems. A `.json`
 * file is read with `JSON.parse` (json-tree.ts); any other with the `yaml` package. Both
 * give the same tree, so the validator and every position it reports work alike. A
 * `.json` file that is not strict JSON is parsed a second time with `yaml`, whose errors
 * name the place and the mistake better than `JSON.parse` does.
 */
import { LineCounter, parseDocument, type YAMLError } from "yaml";
import type { RuleProblem } from "../../errors.js";
import { MAX_JSON_DEPTH, readJsonTree } from "./json-tree.js";
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
  let jsonError: unknown;
  if (json) {
    try {
      return readJson(text, file, lines);
    } catch (err) {
      // Only JSON.parse's refusal: anything else is a bug, not the file's fault.
      if (!(err instanceof SyntaxError)) throw err;
      jsonError = err;
    }
  }
  const doc = parseDocument(text, {
    lineCounter: new LineCounter(),
    merge: true,
    prettyErrors: true,
  });
  if (doc.errors.length > 0) {
    return { lines, problems: doc.errors.map((err) => syntaxProblem(err, file, json)) };
  }
  if (json) return { lines, problems: [strictJsonProblem(jsonError, file, lines)] };
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

/**
 * A JSON file's tree, or its duplicate keys as problems; throws `JSON.parse`'s error when
 * the text is not JSON.
 */
function readJson(text: string, file: string, lines: LineTable): RuleDocument {
  const tree = readJsonTree(text);
  if (tree.ok) return { root: tree.root, lines, problems: [] };
  if (tree.tooDeep !== undefined) {
    return {
      lines,
      problems: [
        {
          file,
          ...lines.position(tree.tooDeep),
          path: "",
          message: `invalid JSON: nested deeper than ${MAX_JSON_DEPTH} levels`,
          hint: "a rule file needs a few levels: is it a rule file?",
        },
      ],
    };
  }
  return {
    lines,
    problems: tree.duplicates.map(({ offset, key }) => ({
      file,
      ...lines.position(offset),
      path: "",
      message: `invalid JSON: key ${JSON.stringify(key)} written twice in one object`,
      hint: "write each key once per object",
    })),
  };
}

/**
 * `JSON.parse`'s error, for JSON the YAML parser accepts (comments, trailing commas,
 * bare words).
 */
function strictJsonProblem(err: unknown, file: string, lines: LineTable): RuleProblem {
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
