/**
 * The delivery benchmark's rules: one per rule id, each with the same signed
 * CloudEvents webhook (one endpoint, many rules), shared by the benchmark and its
 * worker processes so both look the same rules up.
 */

import { RuleSet } from "../src/rules/match/rule-matcher.js";
import type { Rule, WebhookChannelSpec } from "../src/rules/rule.js";
import { BENCH_ZONE } from "./delivery-alerts.js";

/** The Standard Webhooks secret of the benchmark's endpoint. */
export const BENCH_SECRET = `whsec_${Buffer.alloc(32, 42).toString("base64")}`;

/** A rule set of `ruleIds`, each sending every alert to `url`. */
export function benchRules(ruleIds: readonly string[], url: string): RuleSet {
  const source = { file: "bench.yaml", line: 1, column: 1 };
  const channel: WebhookChannelSpec = {
    type: "webhook",
    name: "hook",
    url,
    secret: BENCH_SECRET,
    format: "cloudevents",
    source,
  };
  const rules = ruleIds.map(
    (id): Rule => ({
      id,
      labels: { team: "ops" },
      description: "every change (delivery benchmark)",
      source,
      flights: {},
      channels: [channel],
      groupWaitMs: 0,
      coolDownMs: 0,
    }),
  );
  return new RuleSet(rules, { zone: BENCH_ZONE });
}
