/**
 * What `flightwatch channels test` does (channels-command.ts is the definition): finds
 * the rule — in the rule files, or a passenger subscription in Redis — makes a sample
 * alert marked as a test (deliver/sample-alert.ts), and sends it once through each of
 * the rule's channels with the daemon's own senders, then says what each receiver
 * answered. Nothing is queued, recorded or retried.
 */
import { Redis } from "ioredis";
import { readPublicUrl, readSlackApiUrl, rulesDir } from "../config/daemon-config.js";
import { redisSettingsFromEnv } from "../config/detect-settings.js";
import { readEmailSettings } from "../config/email-settings.js";
import { readRuleVariables } from "../config/rule-variables.js";
import { destinationOf } from "../deliver/endpoint.js";
import { notificationOf } from "../deliver/notification.js";
import { sampleAlert } from "../deliver/sample-alert.js";
import type { SendOutcome } from "../deliver/send-outcome.js";
import { buildSenders } from "../deliver/senders.js";
import { formatRuleProblem, InvalidParamError } from "../errors.js";
import { secretMasker, type TextMasker } from "../log/mask-secrets.js";
import { readOutboundAllow } from "../outbound/outbound-policy.js";
import { suggestionHint } from "../rules/read/did-you-mean.js";
import { loadRuleDir } from "../rules/read/rule-loader.js";
import type { Rule } from "../rules/rule.js";
import { connectRedis, type RedisConnection } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import { subscriptionIdOf, subscriptionRule } from "../subscriptions/subscription.js";
import { SubscriptionStore } from "../subscriptions/subscription-store.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { passengerLinks } from "../web/link-token.js";
import type { ChannelsTestFlags } from "./channels-command.js";
import { EXIT } from "./exit-codes.js";
import { maskerFor } from "./rule-masking.js";

/** One channel's answer, as `--json` prints it. */
interface Tested {
  channel: string;
  type: string;
  destination: string;
  outcome: "delivered" | "failed";
  code?: number | string;
  reason?: string;
  detail?: string;
}

/** `channels test`: 0 when every channel tested accepted the sample, 1 otherwise. */
export async function runChannelsTest(
  id: string,
  dirArg: string | undefined,
  flags: ChannelsTestFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const zone = env.AIRPORT_TIMEZONE?.trim() || DEFAULT_AIRPORT_TIMEZONE;
  const outbound = readOutboundAllow(env);
  const slackApiUrl = readSlackApiUrl(env.SLACK_API_URL);
  const email = readEmailSettings(env);
  const settings = redisSettingsFromEnv(env);
  const keys = redisKeys(settings.prefix, settings.deliveryShards);
  let redis: RedisConnection | undefined;
  try {
    const subscriptionId = subscriptionIdOf(id);
    let found: { rule: Rule; mask: TextMasker } | undefined;
    if (subscriptionId === undefined) {
      found = await ruleOfFiles(id, dirArg, flags, env, zone);
      if (found === undefined) return EXIT.usage;
    } else {
      redis = await connectRedis(settings.url);
      const store = new SubscriptionStore(redis, keys, { zone });
      const subscription = await store.get(subscriptionId);
      if (subscription === undefined) {
        throw new InvalidParamError(
          "<id>",
          `no subscription ${subscriptionId} under the prefix ${settings.prefix} (FLIGHTWATCH_PREFIX) at REDIS_URL`,
        );
      }
      if (subscription.status !== "active") {
        // Double opt-in: nothing goes to an address that has not confirmed, or left.
        throw new InvalidParamError(
          "<id>",
          `subscription ${subscriptionId} is ${subscription.status}: only an active subscription's channel is tested (nothing is sent to an address that has not confirmed or has unsubscribed)`,
        );
      }
      const publicUrl = readPublicUrl(env.PUBLIC_URL);
      const secret = env.SUBSCRIPTION_SECRET?.trim() || (await redis.get(keys.webSecret));
      const links =
        publicUrl !== undefined && secret ? passengerLinks(publicUrl, secret) : undefined;
      const rule = subscriptionRule(subscription, {
        zone,
        outbound,
        ...(links ? { unsubscribeUrl: links.unsubscribeUrl } : {}),
      });
      const secrets = subscription.channel.type === "webhook" ? [subscription.channel.secret] : [];
      found = { rule, mask: secretMasker(secrets.filter((s) => s !== undefined)) };
    }
    const { rule, mask } = found;
    const channels =
      flags.channel === undefined
        ? rule.channels
        : rule.channels.filter((c) => c.name === flags.channel);
    if (channels.length === 0) {
      const names = rule.channels.map((c) => c.name);
      throw new InvalidParamError(
        "--channel",
        `${rule.id} has no channel named ${JSON.stringify(flags.channel)}; ${suggestionHint(flags.channel ?? "", names)}`,
      );
    }
    // Only Slack's pacing uses Redis: otherwise no connection is made.
    redis ??= channels.some((c) => c.type === "slack")
      ? await connectRedis(settings.url)
      : new Redis(settings.url, { lazyConnect: true });
    const senders = buildSenders({
      ...(email ? { email } : {}),
      redis,
      keys,
      console: { write: (text) => void process.stdout.write(text), json: false },
      outbound,
      ...(slackApiUrl !== undefined ? { slackApiUrl } : {}),
    });
    const alert = sampleAlert(rule, Date.now(), zone);
    const results: Tested[] = [];
    for (const channel of channels) {
      const notification = notificationOf(alert, channel);
      const outcome = await senders[channel.type].send(notification, channel, {
        rule,
        zone,
        now: Date.now,
        attempt: 1,
      });
      results.push(testedOf(channel.name, channel.type, destinationOf(channel), outcome));
    }
    await Promise.all(Object.values(senders).map((s) => s.close()));
    for (const r of results) {
      const line = flags.json ? JSON.stringify(r) : describe(rule.id, r);
      process.stdout.write(`${mask(line)}\n`);
    }
    return results.every((r) => r.outcome === "delivered") ? EXIT.ok : EXIT.failure;
  } finally {
    redis?.disconnect();
  }
}

/** The rule `id` of the rule files, and its masker; undefined (problems printed) when none. */
async function ruleOfFiles(
  id: string,
  dirArg: string | undefined,
  flags: ChannelsTestFlags,
  env: Record<string, string | undefined>,
  zone: string,
): Promise<{ rule: Rule; mask: TextMasker } | undefined> {
  const dir = rulesDir(dirArg, env);
  const vars = readRuleVariables(env, flags.varsFile);
  const load = await loadRuleDir(dir, { vars, zone, outbound: readOutboundAllow(env) });
  const mask = maskerFor(load, vars);
  const rule = load.rules.find((r) => r.id === id);
  if (rule !== undefined) return { rule, mask };
  for (const problem of load.problems) {
    process.stderr.write(`${mask(formatRuleProblem(problem))}\n`);
  }
  const known = load.rules.map((r) => r.id);
  const why = load.disabled.includes(id)
    ? `rule ${id} is disabled (enabled: false)`
    : load.problems.some((p) => p.ruleId === id)
      ? `rule ${id} has problems (above)`
      : `no rule ${id} in ${dir}; ${suggestionHint(id, known)}`;
  process.stderr.write(`flightwatch: ${why}; nothing was sent\n`);
  return undefined;
}

function testedOf(
  channel: string,
  type: string,
  destination: string,
  outcome: SendOutcome,
): Tested {
  const base = { channel, type, destination };
  if (outcome.status === "delivered") {
    return {
      ...base,
      outcome: "delivered",
      ...(outcome.code !== undefined ? { code: outcome.code } : {}),
    };
  }
  if (outcome.status === "retry" || outcome.status === "failed") {
    return {
      ...base,
      outcome: "failed",
      ...(outcome.code !== undefined ? { code: outcome.code } : {}),
      reason: outcome.reason,
      detail: outcome.detail,
    };
  }
  // Not made by senders outside a delivery worker (no lock to lose, no subscription check).
  return { ...base, outcome: "failed", detail: outcome.status };
}

/**
 * `✓ ops-gates/webhook → https://hooks.example.com/… — accepted (200)` or
 * `✗ … — reason: detail` (a dash, not a colon, after the URL: a colon would read as
 * part of it).
 */
function describe(ruleId: string, r: Tested): string {
  const what = `${ruleId}/${r.channel}${r.channel === r.type ? "" : ` (${r.type})`} → ${r.destination}`;
  if (r.outcome === "delivered") {
    return `✓ ${what} — accepted${r.code !== undefined ? ` (${r.code})` : ""}`;
  }
  return `✗ ${what} — ${r.reason ?? "failed"}: ${r.detail ?? ""}`;
}
