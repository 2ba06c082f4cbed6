/**
 * `${NAME}` substitution in rule-file values: `${NAME}` is the variable (an error when
 * it is not set or empty), `${NAME:-default}` falls back to `default`, `$$` is a
 * literal `$`. A `$` before anything else stays as written, so templates and prices
 * need no escaping; a `${` that does not form one of the two shapes is an error.
 */

/** The environment substitution reads. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What went wrong in one value: a message and how to fix it. */
export interface SubstitutionProblem {
  message: string;
  hint: string;
}

/** The substituted text, or every problem found in it. */
export type Substitution =
  | { ok: true; value: string }
  | { ok: false; problems: SubstitutionProblem[] };

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SHAPES_HINT = `write \${NAME} or \${NAME:-default}, and $$ for a literal $`;

/** Substitutes the environment into one value. */
export function substituteEnv(text: string, env: Env): Substitution {
  // Nearly every value has no `$`: skip the scan.
  if (!text.includes("$")) return { ok: true, value: text };
  const problems: SubstitutionProblem[] = [];
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
    const value = env[name];
    if (value !== undefined && value !== "") {
      out += value;
    } else if (sep >= 0) {
      out += inner.slice(sep + 2);
    } else {
      problems.push({
        message: `environment variable \`${name}\` is ${value === "" ? "empty" : "not set"}`,
        hint: `set it, or write \${${name}:-default}`,
      });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: out };
}
