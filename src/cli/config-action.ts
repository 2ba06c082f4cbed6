/**
 * What `flightwatch config` does, loaded when it runs (config-command.ts is the
 * definition): reads the configuration and the rule files as `run` would, optionally
 * checks the connections, and prints every value with its source and every problem.
 */
import { CONFIG_VARIABLES } from "../config/config-variables.js";
import {
  type CheckedConnection,
  checkRedis,
  checkSmtp,
  checkUpstream,
} from "../config/connection-check.js";
import {
  configSourcesFor,
  type DaemonConfig,
  effectiveEnv,
  readDaemonConfig,
  rulesDir,
  secretsIn,
} from "../config/daemon-config.js";
import { readRuleVariables, ruleVariableSecrets } from "../config/rule-variables.js";
import { findRedisServer } from "../daemon/private-redis.js";
import { ConfigError, ConfigProblemsError, formatRuleProblem } from "../errors.js";
import { maskSecrets, secretMasker } from "../log/mask-secrets.js";
import { maskUrl } from "../log/mask-url.js";
import { OutboundPolicy } from "../outbound/outbound-policy.js";
import { loadRuleDir } from "../rules/read/rule-loader.js";
import type { RuleVariables } from "../rules/read/variable-substitution.js";
import { airportZone, DEFAULT_AIRPORT_TIMEZONE } from "../time/local-time.js";
import type { ConfigCommandFlags } from "./config-command.js";
import { EXIT } from "./exit-codes.js";

/** What the rules check found. */
interface RulesVerdict {
  dir: string;
  rules: number;
  files: number;
  problems: string[];
}

/** Prints the configuration and the verdicts; resolves to the exit code. */
export async function runConfig(
  flags: ConfigCommandFlags,
  env: Record<string, string | undefined>,
): Promise<number> {
  const { env: merged, options } = configSourcesFor(flags, env);
  const { env: vars, sources, file } = effectiveEnv(merged, options);
  // A vars file that does not read is one more problem in the list, not the end.
  let ruleVars = readRuleVariables(env);
  let varsProblems: readonly ConfigError[] = [];
  try {
    ruleVars = readRuleVariables(env, flags.varsFile);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    varsProblems = err instanceof ConfigProblemsError ? err.problems : [err];
  }
  // Values the rules or a message might quote are masked as run's logs mask them.
  const mask = secretMasker([...secretsIn(vars), ...ruleVariableSecrets(ruleVars)]);
  const rows = CONFIG_VARIABLES.map((variable) => {
    const value = vars[variable.name];
    const shown =
      value === undefined
        ? (variable.default ?? "")
        : variable.exposure === "secret"
          ? "********"
          : // Whatever the variable, credential shapes in a value are masked too
            // (a token in a query, a password in a URL given where none belongs).
            maskSecrets(variable.exposure === "url" ? maskUrl(value) : value);
    return {
      name: variable.name,
      value: shown,
      source: value === undefined ? "default" : (sources[variable.name] ?? "env"),
      meaning: variable.meaning,
    };
  });
  let config: DaemonConfig | undefined;
  let problems: string[] = [];
  try {
    config = readDaemonConfig(merged, options);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = (err instanceof ConfigProblemsError ? err.problems : [err]).map((p) =>
      maskSecrets(p.message),
    );
  }
  problems.push(...varsProblems.map((p) => maskSecrets(p.message)));
  const rules = await checkRules(config, vars, ruleVars, mask);
  const connections =
    flags.checkConnections && config ? await checkConnections(config, flags) : undefined;
  const connectionProblems = (connections ?? []).filter((c) => !c.ok);
  const ok =
    problems.length === 0 && rules.problems.length === 0 && connectionProblems.length === 0;

  if (flags.json) {
    const report = {
      ...(file ? { file } : {}),
      variables: rows,
      problems,
      rules,
      connections: connections?.map((c) => ({ ...c, detail: mask(c.detail) })) ?? null,
      ok,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return ok ? EXIT.ok : EXIT.usage;
  }
  const out: string[] = [];
  const width = Math.max(...rows.map((r) => r.name.length));
  if (file) out.push(`config file: ${file}`);
  for (const row of rows) {
    const value = row.value === "" ? "(unset)" : row.value;
    out.push(
      `${row.name.padEnd(width)}  ${value}${row.source === "default" ? "" : `  (${row.source})`}`,
    );
  }
  out.push("");
  out.push(
    problems.length === 0
      ? "configuration is valid"
      : `${count(problems.length, "problem")}:\n${problems.map((p) => `  ${p}`).join("\n")}`,
  );
  out.push(
    rules.problems.length === 0
      ? `rules: ${count(rules.rules, "rule")} from ${count(rules.files, "file")} in ${rules.dir}, valid`
      : `rules: ${count(rules.problems.length, "problem")} in ${rules.dir}:\n${rules.problems.map((p) => `  ${p}`).join("\n")}`,
  );
  if (connections === undefined) {
    out.push(
      flags.checkConnections
        ? "connections: not checked (fix the configuration first)"
        : "connections: not checked (--check-connections checks Redis, the upstream and SMTP)",
    );
  } else {
    for (const c of connections) out.push(`${c.name}: ${c.ok ? "ok, " : ""}${mask(c.detail)}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return ok ? EXIT.ok : EXIT.usage;
}

/** Loads the rules as `run` does (same directory, variables and zone). */
async function checkRules(
  config: DaemonConfig | undefined,
  vars: Record<string, string>,
  ruleVars: RuleVariables,
  mask: (text: string) => string,
): Promise<RulesVerdict> {
  const dir = config?.rulesDir ?? rulesDir(undefined, vars);
  const load = await loadRuleDir(dir, {
    vars: ruleVars,
    zone: config?.zone ?? zoneOf(vars),
    // An invalid OUTBOUND_ALLOW is reported with the configuration; rules are checked without it.
    outbound: config?.outbound ?? OutboundPolicy.STRICT,
  });
  return {
    dir,
    rules: load.rules.length,
    files: load.files.length,
    problems: load.problems.map((p) => mask(formatRuleProblem(p))),
  };
}

/** The airport zone for loading rules when the configuration is invalid: its own if usable. */
function zoneOf(vars: Record<string, string>): string {
  const zone = vars.AIRPORT_TIMEZONE ?? DEFAULT_AIRPORT_TIMEZONE;
  try {
    airportZone(zone);
    return zone;
  } catch {
    return DEFAULT_AIRPORT_TIMEZONE;
  }
}

/**
 * Redis; for roles that poll a real upstream, the upstream; for roles that deliver
 * with SMTP_URL set, the SMTP server.
 */
async function checkConnections(
  config: DaemonConfig,
  flags: ConfigCommandFlags,
): Promise<CheckedConnection[]> {
  const [redis, upstream, smtp] = await Promise.all([
    checkRedis(config.redis.url, config.redis.prefix),
    config.client ? checkUpstream(config.client) : undefined,
    config.email && config.role !== "poller" ? checkSmtp(config.email) : undefined,
  ]);
  const checks: CheckedConnection[] = [redis];
  if (!redis.ok && flags.simulator && !config.redisGiven) {
    // As run --simulator does: without REDIS_URL and no Redis at the default address,
    // it starts a private one when redis-server is on PATH.
    const binary = findRedisServer();
    if (binary !== undefined) {
      checks[0] = {
        name: "Redis",
        ok: true,
        detail: `none at ${maskUrl(config.redis.url)}; run --simulator starts a private one (${binary})`,
      };
    }
  }
  if (upstream) checks.push(upstream);
  else if (flags.simulator) {
    checks.push({ name: "upstream", ok: true, detail: "the built-in simulator (--simulator)" });
  }
  if (smtp) checks.push(smtp);
  return checks;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
