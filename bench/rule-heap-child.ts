/**
 * The heap the daemon keeps per loaded rule, for the rule-loading benchmark: run with
 * `--expose-gc` so that each figure is taken after a full collection. After a few rules
 * of `warmDir`, it loads the rules directory it is given as the daemon does
 * (src/daemon/live-rules.ts: the loaded rules built into a RuleSet, the load itself
 * dropped), keeps only the RuleSet, and sends the live heap before and after over IPC.
 */
import { RuleSet } from "../src/rules/match/rule-matcher.js";
import { loadRuleDir } from "../src/rules/read/rule-loader.js";

/** What the child sends back. */
export interface RuleHeapAnswer {
  rules: number;
  /** Live heap after a full collection before loading, bytes. */
  before: number;
  /** Live heap after a full collection with the RuleSet held, bytes. */
  after: number;
}

const [dir, warmDir, zone] = process.argv.slice(2) as [string, string, string];
const gc = globalThis.gc;
if (gc === undefined) throw new Error("run with --expose-gc");

/** Live heap after collecting everything collectable (twice: weak references settle). */
function liveHeap(): number {
  (gc as () => void)();
  (gc as () => void)();
  return process.memoryUsage().heapUsed;
}

// A first small load warms up what loading creates once per process (modules' lazy
// tables, the zone's rules, compiled code), which is no cost of the rules.
new RuleSet((await loadRuleDir(warmDir, { vars: { values: {} }, zone })).rules, { zone });
const before = liveHeap();
const load = await loadRuleDir(dir, { vars: { values: {} }, zone });
if (load.problems.length > 0) throw new Error(`bench rules invalid: ${load.problems[0]?.message}`);
let set: RuleSet | undefined = new RuleSet(load.rules, { zone });
const rules = load.rules.length;
load.rules = [];
const after = liveHeap();
// Held until measured: the set is what the daemon keeps live.
if (set.rules.length !== rules) throw new Error("the set lost rules");
set = undefined;
const answer: RuleHeapAnswer = { rules, before, after };
process.send?.(answer);
