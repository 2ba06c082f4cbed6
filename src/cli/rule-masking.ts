/**
 * What the commands that print rules' channels mask: webhook secrets, Slack bot tokens,
 * and the values of rule variables that went into a URL, a secret or a token or are
 * named like a credential (docs/rules.md, "Variables"). Shared by `rules test` and
 * `channels test`.
 */
import { ruleVariableSecrets } from "../config/rule-variables.js";
import { secretMasker, type TextMasker } from "../log/mask-secrets.js";
import type { RuleLoad } from "../rules/read/rule-loader.js";
import type { RuleVariables } from "../rules/read/variable-substitution.js";

/** Masks what the rules and their variables hold that is secret, in text to print. */
export function maskerFor(load: RuleLoad, vars: RuleVariables): TextMasker {
  const secrets = load.rules.flatMap((rule) =>
    rule.channels.flatMap((c) => {
      if (c.type === "webhook" && c.secret) return [c.secret];
      if (c.type === "slack" && c.token !== undefined) return [c.token];
      return [];
    }),
  );
  return secretMasker([...secrets, ...ruleVariableSecrets(vars, load.secretVariables)]);
}
