/**
 * What `flightwatch rules check|test` do, loaded when a subcommand runs
 * (rules-command.ts is the definition). Wiring only: the loader, the matcher
 * and the dispatch decisions do the work. What they print is masked: webhook secrets,
 * passwords in URLs, and the values of rule variables that went into a URL or secret
 * or are named like a credential (docs/rules.md, "Variables").
 */
import { readFile } from "node:fs/promises";
import type { Flight } from "../api/types.js";
import { rulesDir } from "../config/daemon-config.js";
import { readRuleVariables } from "../config/rule-variables.js";
import { consoleRecord } from "../deliver/console-sender.js";
import { emailMessage } from "../deliver/email-message.js";
import { destinationOf } from "../deliver/endpoint.js";
import { notificationOf } from "../deliver/notification.js";
import { slackLivingMessage } from "../deliver/slack-living-message.js";
import { type SlackMessage, slackMessage } from "../deliver/slack-message.js";
import { webhookMessage } from "../deliver/webhook-message.js";
import { type ChangeEvent, toChangeEvent } from "../diff/change.js";
import { foldCodeshares } from "../diff/codeshare-fold.js";
import { diffFlight } from "../diff/flight-diff.js";
import { identityOf } from "../diff/flight-snapshot.js";
import type { Alert } from "../dispatch/alert.js";
import { admitMatches, flushDue } from "../dispatch/alert-decision.js";
import { groupByTarget } from "../dispatch/dispatcher.js";
import { ConfigError, formatRuleProblem } from "../errors.js";
import { readOutboundAllow } from "../outbound/outbound-policy.js";
import { describeAlert, describeChange, localTime } from "../render/alert-text.js";
import { RuleSet } from "../rules/match/rule-matcher.js";
import { loadRuleDir } from "../rules/read/rule-loader.js";
import { durationText, momentOf } from "../rules/reminders.js";
import { describeSchedule } from "../rules/retry-schedule.js";
import type { ChannelSpec, Rule } from "../rules/rule.js";
import type { RuleMatch } from "../rules/rule-match.js";
import { DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import { EXIT } from "./exit-codes.js";
import { instant } from "./flag-values.js";
import { maskerFor } from "./rule-masking.js";
import type { CheckFlags, TestFlags } from "./rules-command.js";
import { endQuietlyWhenReaderGoes } from "./stdout-sink.js";

const zoneOf = (env: Record<string, string | undefined>) =>
  env.AIRPORT_TIMEZONE?.trim() || DEFAULT_AIRPORT_TIMEZONE;

/**
 * `rules check`: 0 when every file is valid, 1 otherwise. `dirArg` is the argument as
 * given (default FLIGHTWATCH_RULES, else ./rules).
 */
export async function runRulesCheck(
  dirArg: string | undefined,
  flags: CheckFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const dir = rulesDir(dirArg, env);
  const vars = readRuleVariables(env, flags.varsFile);
  const load = await loadRuleDir(dir, {
    vars,
    zone: zoneOf(env),
    outbound: readOutboundAllow(env),
  });
  const mask = maskerFor(load, vars);
  for (const problem of load.problems) {
    process.stderr.write(`${mask(formatRuleProblem(problem))}\n`);
  }
  const files = `${load.files.length} file${load.files.length === 1 ? "" : "s"}`;
  if (load.problems.length > 0) {
    const n = load.problems.length;
    process.stderr.write(`${n} problem${n === 1 ? "" : "s"} in ${files} of ${dir}\n`);
    return EXIT.failure;
  }
  const disabled = load.disabled.length > 0 ? `, ${load.disabled.length} disabled` : "";
  const rules = `${load.rules.length} rule${load.rules.length === 1 ? "" : "s"}`;
  process.stdout.write(`${dir}: ${rules} in ${files}${disabled} — OK\n`);
  return EXIT.ok;
}

/** `rules test`: 0 when at least one rule matches, 1 when none does; `dirArg` as for check. */
export async function runRulesTest(
  dirArg: string | undefined,
  flags: TestFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const dir = rulesDir(dirArg, env);
  endQuietlyWhenReaderGoes();
  const zone = zoneOf(env);
  const now = flags.now === undefined ? Date.now() : instant("--now", flags.now, zone);
  const vars = readRuleVariables(env, flags.varsFile);
  const events = await readEvents(flags, zone);
  const load = await loadRuleDir(dir, { vars, zone, outbound: readOutboundAllow(env) });
  const mask = maskerFor(load, vars);
  const print = (text: string) => void process.stdout.write(mask(text));
  if (load.problems.length > 0) {
    for (const problem of load.problems) {
      process.stderr.write(`${mask(formatRuleProblem(problem))}\n`);
    }
    process.stderr.write(`the rules in ${dir} do not load; nothing was tested\n`);
    return EXIT.usage;
  }
  if (events.length === 0) {
    process.stderr.write("no change: the records before and after hold the same values\n");
    return EXIT.failure;
  }
  const ruleSet = new RuleSet(load.rules, { zone });
  const matches = ruleSet.match(events, now);
  const from = env.EMAIL_FROM?.trim() || "flightwatch <flightwatch@localhost>";
  const outcomes = decide(matches, now);
  let reminding: string[] = [];
  if (flags.json) {
    const out = outcomes.map(({ rule, matches: m, alert }) => ({
      rule: rule.id,
      source: `${rule.source.file}:${rule.source.line}:${rule.source.column}`,
      events: m.map((x) => x.event.id),
      selectors: m.map((x) => x.selector?.name ?? null),
      alert: alert ?? null,
      channels: rule.channels.map((c) => ({
        name: c.name,
        type: c.type,
        to: destinationOf(c),
        ...(c.retry ? { retry: describeSchedule(c.retry) } : {}),
        payload: alert ? payloadOf(c, alert, rule, zone, from) : null,
      })),
    }));
    // Masked value by value: a secret's JSON escaping cannot hide it from the masker.
    const masked = (_key: string, value: unknown) =>
      typeof value === "string" ? mask(value) : value;
    process.stdout.write(`${JSON.stringify({ events, matches: out }, masked, 2)}\n`);
  } else {
    for (const event of events) {
      print(
        `change: ${event.flight.mainFlight} ${describeChange({ ...event, eventIds: [] }, zone, { current: event.current })}\n`,
      );
    }
    for (const { rule, matches: m, alert } of outcomes) {
      const via = [...new Set(m.map((x) => x.selector?.name ?? "any change"))].join(", ");
      print(`\n✓ ${rule.id} (${rule.source.file}:${rule.source.line}) — matched by ${via}\n`);
      if (rule.description) print(`    ${rule.description}\n`);
      if (!alert) {
        print("    nothing sent: held back by the rule's noise control (e.g. shift_at_least)\n");
        continue;
      }
      if (alert.decidedAt > now) {
        // Held past group_wait: by quiet hours, shown on their clock.
        const q = rule.quietHours;
        const held = q !== undefined && alert.decidedAt > now + rule.groupWaitMs;
        const at = held
          ? `${localTime(alert.decidedAt, q.zone, true)} ${q.zone}`
          : localTime(alert.decidedAt, zone, true);
        print(`    goes out at ${at} (${held ? "after quiet hours" : "after group_wait"})\n`);
      }
      for (const channel of rule.channels) {
        const kind = channel.name === channel.type ? "" : ` (${channel.type})`;
        print(`    ${channel.name}${kind} → ${destinationOf(channel)}\n`);
        // Only a schedule the rule chose: the default one would repeat on every channel.
        if (channel.retry) print(`      retry: ${describeSchedule(channel.retry)}\n`);
        for (const line of preview(channel, alert, rule, zone, from)) {
          print(`      ${line}\n`);
        }
      }
    }
    reminding = reminderLines(ruleSet, events, now, zone);
    for (const line of reminding) print(line);
    const n = outcomes.length;
    print(
      `\n${n} of ${load.rules.length} rule${load.rules.length === 1 ? "" : "s"} match${n === 1 ? "es" : ""}; nothing was sent\n`,
    );
  }
  return outcomes.length > 0 || reminding.length > 0 ? EXIT.ok : EXIT.failure;
}

/**
 * The masker of what `rules check|test` print: webhook secrets, the values of rule
 * variables that went into a URL or secret or are named like a credential, and every
 * credential shape maskSecrets knows (passwords in URLs, Slack webhook paths, tokens).
 */

/**
 * The reminders the rules with reminders would schedule from the flight as the change
 * leaves it: when each is due, or why none is (no such time known yet, already past).
 */
function reminderLines(
  ruleSet: RuleSet,
  events: readonly ChangeEvent[],
  now: number,
  zone: string,
): string[] {
  const last = events[events.length - 1];
  if (last === undefined) return [];
  const lines: string[] = [];
  for (const rule of ruleSet.reminding(last, now)) {
    lines.push(`\n⏰ ${rule.id} (${rule.source.file}:${rule.source.line}) — reminders\n`);
    for (const reminder of rule.reminders ?? []) {
      const name = `${durationText(reminder.byMs)} before ${reminder.before.replace("_", " ")}`;
      const at = momentOf(reminder.before, last.flight, last.current);
      if (at === undefined) {
        lines.push(
          `    ${name}: none — no ${reminder.before.replace("_", " ")} time, or it has come or is gone\n`,
        );
        continue;
      }
      const due = at - reminder.byMs;
      const when =
        due <= now
          ? "due already (sent at once if it fell due after the rule began)"
          : `due ${localTime(due, zone, true)}`;
      lines.push(
        `    ${name}: ${when} (${reminder.before.replace("_", " ")} ${localTime(at, zone, true)})\n`,
      );
    }
  }
  return lines;
}

interface Outcome {
  rule: Rule;
  matches: RuleMatch[];
  alert: Alert | undefined;
}

/** The alert each matching rule would decide with no memory of earlier alerts. */
function decide(matches: readonly RuleMatch[], now: number): Outcome[] {
  return groupByTarget(matches).map(({ rule: given, matches: mine }) => {
    // The change's alert: reminders are shown on their own (reminderLines).
    const rule = given.reminders === undefined ? given : { ...given, reminders: undefined };
    let decision = admitMatches(undefined, rule, mine, now);
    // A group that waits (group_wait, held flaps) is shown as it goes out when due.
    for (let step = 0; decision.alerts.length === 0 && decision.dueAt !== undefined; step++) {
      if (step === 10) break;
      decision = flushDue(decision.state, rule, decision.dueAt);
    }
    return { rule, matches: mine, alert: decision.alerts[0] };
  });
}

/** What a channel would receive: the payload its sender would send (nothing is sent). */
function payloadOf(channel: ChannelSpec, alert: Alert, rule: Rule, zone: string, from: string) {
  const n = notificationOf(alert, channel);
  switch (channel.type) {
    case "email":
      // The first recipient's message: the others' differ only in To, Message-ID and
      // the unsubscribe link.
      return { id: n.id, ...emailMessage(n, channel, rule, zone, from, channel.to[0] ?? "") };
    case "slack":
      // A Web API channel: the flight's living message, and the reply in its thread.
      return channel.token === undefined
        ? { id: n.id, ...slackMessage(n, channel, rule, zone) }
        : {
            id: n.id,
            living: slackLivingMessage(alert, rule, zone),
            reply: slackMessage(n, channel, rule, zone),
          };
    case "webhook": {
      const message = webhookMessage(n, channel, { rule, zone });
      return {
        id: n.id,
        contentType: message.contentType,
        signed: channel.secret !== undefined,
        body: JSON.parse(message.body) as unknown,
      };
    }
    default:
      return consoleRecord(n, channel, rule, zone);
  }
}

/** The payload in a few lines of text. */
function preview(
  channel: ChannelSpec,
  alert: Alert,
  rule: Rule,
  zone: string,
  from: string,
): string[] {
  const payload = payloadOf(channel, alert, rule, zone, from);
  switch (channel.type) {
    case "email": {
      const mail = payload as ReturnType<typeof emailMessage>;
      return [`subject: ${mail.subject}`, ...mail.text.split("\n").filter((l) => l !== "")];
    }
    case "slack": {
      if (channel.token === undefined) return [(payload as ReturnType<typeof slackMessage>).text];
      const { living, reply } = payload as Record<"living" | "reply", SlackMessage>;
      return [`living message: ${living.text}`, `thread reply: ${reply.text}`];
    }
    case "webhook": {
      const hook = payload as { body: { type?: string }; signed: boolean };
      return [
        `${channel.format === "json" ? "JSON" : "CloudEvents 1.0"} \`${hook.body.type}\`${hook.signed ? ", signed (Standard Webhooks)" : ", unsigned"}, webhook-id ${payload.id}`,
        describeAlert(alert, zone),
      ];
    }
    default:
      return [describeAlert(alert, zone)];
  }
}

async function readEvents(flags: TestFlags, zone: string): Promise<ChangeEvent[]> {
  if (flags.event !== undefined) {
    if (flags.before !== undefined || flags.after !== undefined) {
      throw new ConfigError("--event", "give either --event or --before/--after, not both");
    }
    return parseEvents(await readInput(flags.event), flags.event);
  }
  if (flags.after === undefined) {
    throw new ConfigError(
      "--event",
      "give a change event (--event) or a flight before/after (--after, with --before)",
    );
  }
  const after = parseRecords(await readInput(flags.after), "--after");
  const before =
    flags.before === undefined ? [] : parseRecords(await readInput(flags.before), "--before");
  return eventsOfPair(before, after, zone);
}

/** Change events between two observations of one flight, as the detector would report them. */
export function eventsOfPair(before: Flight[], after: Flight[], zone: string): ChangeEvent[] {
  const [seen] = foldCodeshares(before, zone);
  const [now] = foldCodeshares(after, zone);
  if (!now) throw new ConfigError("--after", "holds no flight record with an id or flight name");
  const previous = seen ? diffFlight(undefined, seen, zone).snapshot : undefined;
  const result = diffFlight(previous, now, zone);
  const { snapshot } = result;
  const identity = identityOf(snapshot);
  return result.changes.map((change) =>
    toChangeEvent(change, identity, snapshot.version, snapshot.fields),
  );
}

async function readInput(file: string): Promise<string> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw new ConfigError(file, `cannot read it (${(err as NodeJS.ErrnoException).code ?? err})`);
  }
}

function parseEvents(text: string, source: string): ChangeEvent[] {
  const values = parseJsonOrLines(text, source);
  const events = values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  events.forEach((e, i) => {
    const ok =
      typeof e === "object" &&
      e !== null &&
      "kind" in e &&
      "flight" in e &&
      typeof (e as { flight: unknown }).flight === "object";
    if (!ok) {
      throw new ConfigError(
        source,
        `item ${i + 1} is not a change event (needs kind, field, action, flight); print one with \`flightwatch watch\``,
      );
    }
  });
  return events as ChangeEvent[];
}

function parseRecords(text: string, flag: string): Flight[] {
  const values = parseJsonOrLines(text, flag);
  const records = values.flatMap((v) => {
    if (Array.isArray(v)) return v;
    if (v && typeof v === "object" && Array.isArray((v as { flights?: unknown }).flights)) {
      return (v as { flights: unknown[] }).flights;
    }
    return [v];
  });
  if (records.length === 0 || records.some((r) => typeof r !== "object" || r === null)) {
    throw new ConfigError(flag, "expected a flight record, a list of them or a /flights page");
  }
  return records as Flight[];
}

/** One JSON document, or one per line (as `watch` prints). */
function parseJsonOrLines(text: string, source: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    return lines.map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch (err) {
        throw new ConfigError(source, `line ${i + 1} is not JSON (${(err as Error).message})`);
      }
    });
  }
}
