/**
 * `${NAME}` substitution in rule-file values, from the rule variables only: the names
 * of the `--vars-file` and the environment's `RULE_…` names, never the daemon's own
 * settings (docs/rules.md, "Variables"). `${NAME}` is the variable (an error when it
 * is not set or empty), `${NAME:-default}` falls back to `default`, `$$` is a literal
 * `$`. A `$` before anything else stays as written, so templates and prices need no
 * escaping; a `${` that does not form one of the two shapes is an error.
 */

/** Environment names with this prefix are rule variables; no other environment name is. */
export const RULE_VARIABLE_PREFIX = "RULE_";

/**
 * What substitution may read. A name is a rule variable when `values` has it (every
 * name of the vars file, the environment's value winning, and every `RULE_…` name of
 * the environment) or it starts with `RULE_` (then it is merely not set).
 */
export interface RuleVariables {
  /** Values by name; empty counts as unset. */
  readonly values: Readonly<Record<string, string>>;
  /** The daemon's own names: refused whatever defines them (config-variables.ts). */
  readonly reserved?: (name: string) => boolean;
}

/** What went wrong in one value: a message and how to fix it. */
export interface SubstitutionProblem {
  message: string;
  hint: string;
}

/** The substituted text and the variables it read, or every problem found in it. */
export type Substitution =
  | { ok: true; value: string; names: string[] }
  | { ok: false; problems: SubstitutionProblem[] };

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SHAPES_HINT = `write \${NAME} or \${NAME:-default}, and $$ for a literal $`;

/** Substitutes the rule variables into one value. */
export function substituteVariables(text: string, vars: RuleVariables): Substitution {
  // Nearly every value has no `$`: skip the scan.
  if (!text.includes("$")) return { ok: true, value: text, names: [] };
  const problems: SubstitutionProblem[] = [];
  const names: string[] = [];
  let out = "";
  let i = 0;
  while (i < text.length) {
    const dollar = text.indexOf("$", i);
    if (dollar < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, dollar);
    const next = text[dollar + 1];
    if (next === "$") {
      out += "$";
      i = dollar + 2;
      continue;
    }
    if (next !== "{") {
      out += "$";
      i = dollar + 1;
      continue;
    }
    const close = text.indexOf("}", dollar + 2);
    if (close < 0) {
      problems.push({
        message: `unterminated \`\${\` in \`${text}\``,
        hint: `close it with \`}\`: ${SHAPES_HINT}`,
      });
      break;
    }
    const inner = text.slice(dollar + 2, close);
    i = close + 1;
    const sep = inner.indexOf(":-");
    const name = sep < 0 ? inner : inner.slice(0, sep);
    if (!NAME_RE.test(name)) {
      problems.push({
        message: `\`\${${inner}}\` is not a variable reference`,
        hint: `names are letters, digits and _, not starting with a digit: ${SHAPES_HINT}`,
      });
      continue;
    }
    // Checked before any value or default is used: a rule must not even probe the
    // daemon's variables or the rest of the environment with `:-`.
    const refusal = refusalOf(name, vars);
    if (refusal !== undefined) {
      problems.push(refusal);
      continue;
    }
    names.push(name);
    const value = vars.values[name];
    if (value !== undefined && value !== "") {
      out += value;
    } else if (sep >= 0) {
      out += inner.slice(sep + 2);
    } else {
      problems.push({
        message: `rule variable \`${name}\` is ${value === "" ? "empty" : "not set"}`,
        hint: `set it, or write \${${name}:-default}`,
      });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out, names };
}

/** Why `name` may not be read, or undefined when it is a rule variable. */
function refusalOf(name: string, vars: RuleVariables): SubstitutionProblem | undefined {
  if (vars.reserved?.(name)) {
    return {
      message: `\`\${${name}}\` is a flightwatch setting, which rule files may not read`,
      hint: `give the rule a variable of its own (a name in the --vars-file, or ${RULE_VARIABLE_PREFIX}… in the environment); settings and their secrets stay with the daemon`,
    };
  }
  if (Object.hasOwn(vars.values, name) || name.startsWith(RULE_VARIABLE_PREFIX)) return undefined;
  return {
    message: `\`\${${name}}\` is not a rule variable`,
    hint: `define it in the --vars-file, or name it ${RULE_VARIABLE_PREFIX}${name} in the environment`,
  };
}
