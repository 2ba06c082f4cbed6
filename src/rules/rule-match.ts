/** A change event selected by a rule: the matcher's output and the dispatcher's input. */
import type { ChangeEvent } from "../diff/change.js";
import type { ChangeSelector, Rule } from "./rule.js";

/** One rule selecting one change event. */
export interface RuleMatch {
  rule: Rule;
  event: ChangeEvent;
  /** The first of the rule's selectors that matched; undefined when the rule takes every change. */
  selector?: ChangeSelector;
}
