/**
 * Builds valid, normalised `Rule` objects for tests directly, as the loader would
 * produce them, without rule files: `rule("r1", { flights: { flights: ["KL601"] } })`.
 */
import type { ChangeKind } from "../../src/diff/change.js";
import type { ChangeSelector, FlightFilter, Rule } from "../../src/rules/rule.js";

/** Parts of a rule a test may set; the rest get neutral defaults. */
export interface RuleParts {
  flights?: FlightFilter;
  changes?: (ChangeKind | ChangeSelector)[];
  labels?: Record<string, string>;
}

/** A rule with a console channel, no noise control and the given filters. */
export function rule(id: string, parts: RuleParts = {}): Rule {
  const built: Rule = {
    id,
    labels: parts.labels ?? {},
    source: { file: "test.yaml", line: 1, column: 1 },
    flights: parts.flights ?? {},
    channels: [
      { type: "console", name: "console", source: { file: "test.yaml", line: 2, column: 1 } },
    ],
    groupWaitMs: 0,
    coolDownMs: 0,
  };
  if (parts.changes)
    built.changes = parts.changes.map((c) => (typeof c === "string" ? select(c) : c));
  return built;
}

/** A selector of one kind with the given options; `name` defaults to the kind. */
export function select(kind: ChangeKind, options: Partial<ChangeSelector> = {}): ChangeSelector {
  return { name: kind, kinds: [kind], ...options };
}
