/**
 * Acceptance timelines, the way Alertmanager's acceptance tests read: a cast of
 * flights, rule files, and a timeline of inputs with the deliveries each must cause
 * within a time bound — run against the real `flightwatch run` (a child process), the
 * simulator over HTTP, a real Redis and real loopback receivers (a Slack look-alike, a
 * webhook receiver checking signatures, an SMTP server).
 *
 * ```ts
 * const tl = timeline({ cast: [departure("KL1001", { gate: "D4" })], rules });
 * tl.at("1s").gate("KL1001", "D7").expect(slack("ops").about("KL1001").saying("D7"));
 * tl.nothing(webhook("partner"));
 * await tl.run(); // throws a report of what was missing, late, early or unexpected
 * ```
 *
 * Times are from `t0`, the moment every daemon has taken its baseline. An expectation
 * holds from the moment its step actually ran (not its nominal time) until one poll
 * interval plus the tolerance later (`after` and `within` widen it). Every delivery
 * must answer exactly one expectation: a second copy of an alert, or an alert nobody
 * expected, fails the timeline (`strict: false` allows unexpected ones). Every webhook
 * body must match the published schema (schemas/webhook.schema.json), documented
 * fields only.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Flight } from "../../src/api/types.js";
import type { ResponseLogEntry } from "../../src/simulator/http/simulator-server.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import type { ScriptAction } from "../../src/simulator/script-action.js";
import { createSimulator } from "../../src/simulator/simulator.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { parseDuration } from "../../src/time/duration.js";
import { type CliProcess, completeLines, spawnCli } from "../support/cli-process.js";
import { sleep, waitFor } from "../support/crash-run.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { type SlackReceiver, startSlackReceiver } from "../support/slack-receiver.js";
import { type SmtpReceiver, startSmtpReceiver } from "../support/smtp-receiver.js";
import {
  type ReceiverResponse,
  startWebhookReceiver,
  type WebhookDelivery,
  type WebhookReceiver,
} from "../support/webhook-receiver.js";
import { webhookSchemaErrors } from "../support/webhook-schema.js";
import { afterSchedule, type CastFlight, castRecords, ZONE } from "./cast.js";
import { type Delivery, type Matcher, readDeliveries } from "./deliveries.js";

/** The secret of `${RULE_WEBHOOK_SECRET}`; the receiver refuses anything not signed with it. */
export const WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 42).toString("base64")}`;

export interface TimelineOptions {
  /** A label for Redis keys and reports. */
  name: string;
  /** Flights added to the simulator before the daemons start (their baseline). */
  cast?: CastFlight[];
  /**
   * The rule files' YAML, by file name (or one text for `rules.yaml`). The daemon
   * substitutes `${RULE_SLACK_URL}` (append a path per channel: `${RULE_SLACK_URL}/ops`),
   * `${RULE_WEBHOOK_URL}` and `${RULE_WEBHOOK_SECRET}`; email goes to the SMTP receiver.
   */
  rules: string | Record<string, string>;
  /** POLL_INTERVAL (default 500ms). */
  interval?: string;
  /** Added to every expectation's window (default 3s: child processes on a busy CI machine). */
  tolerance?: string;
  /** Daemons (`flightwatch run`) sharing the Redis prefix (default 1). */
  daemons?: number;
  /** Variables beside the timeline's own, for every daemon. */
  env?: Record<string, string>;
  /** The simulator's seed: its 150 background flights a day, which never change (default 7). */
  seed?: number;
  /**
   * The simulator's clock starts this far behind real time (default 0). A step may then
   * move it on (`(w.sim.simulator.clock as ScaledClock).skip(ms)`) to stamp simulated
   * minutes of changes within seconds, never ahead of the daemons' clock.
   */
  simulatorBehind?: string;
  /** Redis of the daemons (default the test Redis); the timeline's prefix is used either way. */
  redisUrl?: string;
  /** After the last step, how long to keep listening once every expectation is met (default 3 intervals + 2 s). */
  settle?: string;
  /** Unexpected deliveries fail the timeline (default true). */
  strict?: boolean;
}

/** One API request the simulator answered (or dropped), and when. */
export interface UpstreamExchange extends ResponseLogEntry {
  /** Epoch ms the answer ended (its start is `at - durationMs`). */
  at: number;
}

/** Everything a timeline runs, for steps that do more than the built-in actions. */
export interface World {
  sim: RunningSimulator;
  /** The daemons' API requests as the simulator answered them, in order (faults included). */
  upstream: UpstreamExchange[];
  redis: TestRedis;
  keys: RedisKeys;
  slack: SlackReceiver;
  webhook: WebhookReceiver;
  smtp: SmtpReceiver;
  /** How the webhook receiver answers signed requests (default 204); replace it for outages. */
  respond: (delivery: WebhookDelivery, n: number) => ReceiverResponse;
  /** The daemon running in each slot (undefined while stopped). */
  daemons: (CliProcess | undefined)[];
  /** Every daemon process started, in order, with its slot. */
  started: { slot: number; proc: CliProcess; killed: boolean }[];
  intervalMs: number;
  /** Epoch ms of t0 (0 before the baselines). */
  t0: number;
  /**
   * Starts `flightwatch run` in a slot (it must be empty), as consumer `daemon-<slot>`:
   * processes running at once must not share a name, and a restart takes its name back.
   */
  spawn(slot: number, env?: Record<string, string>): CliProcess;
  /** SIGKILLs a slot's daemon and waits for it to die. */
  kill(slot: number): Promise<void>;
  /** SIGTERMs a slot's daemon; it must exit 0 within 15 s. */
  stop(slot: number): Promise<void>;
  /** The simulator's operating record of a flight number. */
  record(flight: string): Flight;
  /** Applies a scripted change to the simulator now. */
  apply(action: ScriptAction): void;
  /** Notes a line in the timeline's report. */
  note(text: string): void;
  /** The states each flight showed before a `cancel` step, by flight number: what `uncancel` restores. */
  statesBeforeCancel: Map<string, string[]>;
}

interface Expectation {
  matcher: Matcher;
  /** Nominal step time, for the report. */
  label: string;
  step?: StepRecord;
  /** Relative to the step's actual time (or absolute from t0 without a step), ms. */
  fromMs: number;
  toMs: number;
}

interface StepRecord {
  atMs: number;
  label: string;
  actions: { label: string; run: (w: World) => Promise<void> | void }[];
  /** When it actually ran, ms from t0. */
  ranAt?: number;
}

/** One step of a timeline: actions at one time and what they must cause. */
export class Step {
  constructor(
    private readonly timeline: Timeline,
    private readonly record: StepRecord,
  ) {}

  /** Any action: `label` names it in reports. */
  do(label: string, run: (w: World) => Promise<void> | void): this {
    this.record.actions.push({ label, run });
    return this;
  }

  /** Changes fields of a flight (and of its codeshare records, as the upstream does). */
  update(
    flight: string,
    patch: Partial<Flight>,
    label = `update ${flight} ${JSON.stringify(patch)}`,
  ): this {
    return this.do(label, (w) =>
      w.apply({ kind: "update", target: { flightName: flight }, patch }),
    );
  }

  /** Moves a flight to a gate (its pier follows the gate's letter). */
  gate(flight: string, gate: string): this {
    return this.update(flight, { gate, pier: gate.slice(0, 1) }, `gate ${flight} → ${gate}`);
  }

  /** Sets the estimated departure (or landing) this long after the schedule (`25m`, `-5m`). */
  delay(flight: string, by: string): this {
    return this.do(`delay ${flight} ${by}`, (w) => {
      const record = w.record(flight);
      const field =
        record.flightDirection === "A" ? "estimatedLandingTime" : "publicEstimatedOffBlockTime";
      w.apply({
        kind: "update",
        target: { flightName: flight },
        patch: { [field]: afterSchedule(record, by) },
      });
    });
  }

  /** Replaces the flight's public states. */
  states(flight: string, ...states: string[]): this {
    return this.update(
      flight,
      { publicFlightState: { flightStates: states } },
      `states ${flight} [${states}]`,
    );
  }

  /**
   * Cancels the flight as the upstream does: its states are replaced by `["CNX"]`
   * (CNX added, every other state withdrawn), and remembered for `uncancel`.
   */
  cancel(flight: string): this {
    return this.do(`cancel ${flight}`, (w) => {
      const before = states(w.record(flight)).filter((s) => s !== "CNX");
      if (before.length > 0) w.statesBeforeCancel.set(flight, before);
      w.apply(replaceStates(flight, ["CNX"]));
    });
  }

  /**
   * Withdraws a cancellation as the upstream does: the states the flight showed before
   * the timeline cancelled it come back in place of `["CNX"]` (`["SCH"]` if unknown).
   */
  uncancel(flight: string): this {
    return this.do(`un-cancel ${flight}`, (w) => {
      const left = states(w.record(flight)).filter((s) => s !== "CNX");
      const back = w.statesBeforeCancel.get(flight) ?? (left.length > 0 ? left : ["SCH"]);
      w.statesBeforeCancel.delete(flight);
      w.apply(replaceStates(flight, back));
    });
  }

  /** Diverts an arrival as the upstream does: its states are replaced by `["DIV"]`. */
  divert(flight: string): this {
    return this.do(`divert ${flight}`, (w) => w.apply(replaceStates(flight, ["DIV"])));
  }

  /** Assigns a baggage belt. */
  belt(flight: string, belt: string): this {
    return this.update(flight, { baggageClaim: { belts: [belt] } }, `belt ${flight} → ${belt}`);
  }

  /** A new `lastUpdatedAt` and nothing else: noise the daemon must stay quiet about. */
  touch(flight: string): this {
    return this.do(`touch ${flight}`, (w) => {
      const record = w.record(flight);
      w.apply({ kind: "update", target: { flightName: flight }, patch: { gate: record.gate } });
    });
  }

  /** SIGKILLs the daemon of `slot` (default 0). */
  kill(slot = 0): this {
    return this.do(`SIGKILL daemon ${slot}`, (w) => w.kill(slot));
  }

  /** Starts the daemon of `slot` again (default 0). */
  restart(slot = 0): this {
    return this.do(`start daemon ${slot}`, (w) => {
      w.spawn(slot);
    });
  }

  /** SIGTERMs the daemon of `slot` (default 0); it must exit 0. */
  stop(slot = 0): this {
    return this.do(`SIGTERM daemon ${slot}`, (w) => w.stop(slot));
  }

  /**
   * Expects exactly one delivery like `matcher` from when this step ran plus `after`
   * (default 0) until one interval plus the tolerance after that, plus `within`.
   */
  expect(matcher: Matcher, window: { after?: string; within?: string } = {}): this {
    const after = window.after ? parseDuration(window.after, "after") : 0;
    const within = window.within ? parseDuration(window.within, "within") : 0;
    this.timeline.addExpectation({
      matcher,
      label: this.record.label,
      step: this.record,
      fromMs: after,
      toMs: after + within + this.timeline.intervalMs + this.timeline.toleranceMs,
    });
    return this;
  }

  /** Another step, for chaining. */
  at(time: string): Step {
    return this.timeline.at(time);
  }
}

const states = (record: Flight): string[] => record.publicFlightState?.flightStates ?? [];

function replaceStates(flight: string, flightStates: string[]): ScriptAction {
  return {
    kind: "update",
    target: { flightName: flight },
    patch: { publicFlightState: { flightStates } },
  };
}

/** What a finished timeline saw. */
export interface TimelineResult {
  deliveries: Delivery[];
  /** Epoch ms of t0. */
  t0: number;
  /** The report, as thrown on failure. */
  report: string;
  problems: string[];
}

/** A timeline under construction; `run()` plays it. */
export class Timeline {
  readonly intervalMs: number;
  readonly toleranceMs: number;
  readonly #steps: StepRecord[] = [];
  readonly #expectations: Expectation[] = [];
  readonly #nothing: Matcher[] = [];

  constructor(readonly options: TimelineOptions) {
    this.intervalMs = parseDuration(options.interval ?? "500ms", "interval");
    this.toleranceMs = parseDuration(options.tolerance ?? "3s", "tolerance");
  }

  /** The step at `time` after t0 (`2s`, `1.5s`, `0s`). */
  at(time: string): Step {
    const atMs = parseDuration(time, "at");
    let record = this.#steps.find((s) => s.atMs === atMs);
    if (!record) {
      record = { atMs, label: `t=${time}`, actions: [] };
      this.#steps.push(record);
    }
    return new Step(this, record);
  }

  /** Expects exactly one delivery like `matcher` arriving between `from` and `to` after t0. */
  between(from: string, to: string, matcher: Matcher): this {
    this.addExpectation({
      matcher,
      label: `${from}..${to}`,
      fromMs: parseDuration(from, "from"),
      toMs: parseDuration(to, "to"),
    });
    return this;
  }

  /** No delivery like `matcher`, at any time. */
  nothing(matcher: Matcher): this {
    this.#nothing.push(matcher);
    return this;
  }

  addExpectation(expectation: Expectation): void {
    this.#expectations.push(expectation);
  }

  /** Plays the timeline and checks it; throws the report when anything is off. */
  async run(): Promise<TimelineResult> {
    const result = await this.play();
    if (result.problems.length > 0) throw new Error(result.report);
    return result;
  }

  /** Plays the timeline and returns what it saw without throwing (for tests with oracles of their own). */
  async play(): Promise<TimelineResult> {
    const world = await openWorld(this.options, this.intervalMs);
    const notes: string[] = [];
    world.note = (text) => notes.push(`${clock(world)} ${text}`);
    const problems: string[] = [];
    try {
      const daemons = this.options.daemons ?? 1;
      for (let slot = 0; slot < daemons; slot++) world.spawn(slot);
      await waitFor(async () => {
        for (const entry of world.started) {
          if (entry.proc.child.exitCode !== null) {
            throw new Error(
              `daemon ${entry.slot} exited before its baseline:\n${entry.proc.stderr()}`,
            );
          }
        }
        return (await world.redis.redis.hget(world.keys.detection, "watermark")) !== null;
      }, 60_000);
      // Every daemon's consumers must be up before the first change, or "within one
      // interval" would time a process start.
      await Promise.all(world.started.map((s) => waitForLogLine(s.proc, RUNNING)));
      world.t0 = Date.now();
      world.note("baselines taken (t0)");

      const steps = [...this.#steps].sort((a, b) => a.atMs - b.atMs);
      for (const step of steps) {
        const wait = world.t0 + step.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        step.ranAt = Date.now() - world.t0;
        for (const action of step.actions) {
          world.note(`${step.label}: ${action.label}`);
          await action.run(world);
        }
      }
      await this.#awaitExpectations(world);
      const settle = this.options.settle
        ? parseDuration(this.options.settle, "settle")
        : 3 * this.intervalMs + 2_000;
      await sleep(settle);
      for (let slot = 0; slot < world.daemons.length; slot++) {
        if (world.daemons[slot]) await world.stop(slot).catch((err) => problems.push(String(err)));
      }
    } catch (err) {
      problems.push(`the timeline failed: ${err instanceof Error ? err.stack : String(err)}`);
    } finally {
      await world.closeAll();
    }
    const { deliveries, unverified } = readDeliveries(world);
    for (const u of unverified) problems.push(`webhook request with a bad signature: ${u}`);
    problems.push(...schemaProblems(world.webhook));
    problems.push(...this.#check(world, deliveries));
    for (const entry of world.started) {
      const code = entry.proc.child.exitCode ?? entry.proc.child.signalCode;
      if (!entry.killed && code !== 0 && code !== null) {
        problems.push(
          `daemon ${entry.slot} ended by itself (${code}):\n${tail(entry.proc.stderr())}`,
        );
      }
    }
    const report = this.#report(world, deliveries, notes, problems);
    return { deliveries, t0: world.t0, report, problems };
  }

  async #awaitExpectations(world: OpenWorld): Promise<void> {
    const last = Math.max(0, ...this.#expectations.map((e) => windowOf(e).to));
    const deadline = world.t0 + last;
    while (Date.now() < deadline) {
      const { deliveries } = readDeliveries(world);
      if (assign(this.#expectations, deliveries, world.t0).unmet.length === 0) return;
      await sleep(100);
    }
  }

  #check(world: World, deliveries: Delivery[]): string[] {
    const problems: string[] = [];
    const { unmet, unassigned } = assign(this.#expectations, deliveries, world.t0);
    for (const e of unmet) {
      const { from, to } = windowOf(e);
      const near = deliveries
        .filter((d) => e.matcher.matches(d))
        .map((d) => seconds(d.receivedAt - world.t0));
      problems.push(
        `missing: ${e.matcher} in [${seconds(from)}, ${seconds(to)}] (step ${e.label})` +
          (near.length > 0 ? `; like it, outside the window or taken: ${near.join(", ")}` : ""),
      );
    }
    for (const d of unassigned) {
      const copy = deliveries.find((o) => o !== d && o.id === d.id && o.receivedAt <= d.receivedAt);
      if (copy) problems.push(`duplicate: ${describe(d, world.t0)}`);
      else if (this.options.strict ?? true) problems.push(`unexpected: ${describe(d, world.t0)}`);
    }
    for (const m of this.#nothing) {
      for (const d of deliveries.filter((x) => m.matches(x))) {
        problems.push(`expected nothing like ${m}, got: ${describe(d, world.t0)}`);
      }
    }
    return problems;
  }

  #report(world: World, deliveries: Delivery[], notes: string[], problems: string[]): string {
    const lines = [`timeline ${this.options.name}: ${problems.length === 0 ? "passed" : "FAILED"}`];
    if (problems.length > 0) lines.push("problems:", ...problems.map((p) => `  - ${p}`));
    lines.push("timeline:", ...notes.map((n) => `  ${n}`));
    lines.push("deliveries:", ...deliveries.map((d) => `  ${describe(d, world.t0)}`));
    if (problems.length > 0) {
      for (const entry of world.started) {
        const warnings = completeLines(entry.proc.stdout()).filter((l) =>
          /"level":"(warn|error|fatal)"/.test(l),
        );
        if (warnings.length > 0)
          lines.push(`daemon ${entry.slot} warnings:`, ...warnings.slice(-10).map((l) => `  ${l}`));
      }
    }
    return lines.join("\n");
  }
}

/** A new timeline. */
export function timeline(options: TimelineOptions): Timeline {
  return new Timeline(options);
}

/**
 * Every webhook body the receiver got, checked against the published contract
 * (schemas/webhook.schema.json) with every object closed: a body that breaks it, or
 * carries a field it does not document, is a problem of the timeline.
 */
function schemaProblems(receiver: WebhookReceiver): string[] {
  const problems: string[] = [];
  for (const d of receiver.deliveries) {
    const errors = webhookSchemaErrors(d.body);
    if (errors.length === 0) continue;
    problems.push(
      `webhook body ${d.id} does not match schemas/webhook.schema.json: ${errors.slice(0, 5).join("; ")}`,
    );
  }
  return problems;
}

/** An expectation's window, ms from t0. */
function windowOf(e: Expectation): { from: number; to: number } {
  const base = e.step ? (e.step.ranAt ?? e.step.atMs) : 0;
  return { from: base + e.fromMs, to: base + e.toMs };
}

/**
 * Pairs each expectation with one delivery it matches inside its window, each
 * delivery used once (augmenting paths: a maximum matching, so the order in which
 * expectations were written never decides).
 */
function assign(
  expectations: readonly Expectation[],
  deliveries: readonly Delivery[],
  t0: number,
): { unmet: Expectation[]; unassigned: Delivery[] } {
  const owner = new Map<number, number>(); // delivery index → expectation index
  const fits = expectations.map((e) => {
    const { from, to } = windowOf(e);
    return deliveries
      .map((d, i) => ({ d, i }))
      .filter(
        ({ d }) => e.matcher.matches(d) && d.receivedAt - t0 >= from && d.receivedAt - t0 <= to,
      )
      .map(({ i }) => i);
  });
  const tryAssign = (ei: number, seen: Set<number>): boolean => {
    for (const di of fits[ei] ?? []) {
      if (seen.has(di)) continue;
      seen.add(di);
      const current = owner.get(di);
      if (current === undefined || tryAssign(current, seen)) {
        owner.set(di, ei);
        return true;
      }
    }
    return false;
  };
  const unmet = expectations.filter((_, ei) => !tryAssign(ei, new Set()));
  const unassigned = deliveries.filter((_, di) => !owner.has(di));
  return { unmet, unassigned };
}

function describe(d: Delivery, t0: number): string {
  const changes = d.changes.map((c) =>
    c.kind === "flight"
      ? `flight ${c.action}`
      : `${c.field} ${JSON.stringify(c.old)}→${JSON.stringify(c.new)}${c.state ? ` ${c.action} ${c.state}` : ""}${c.correction ? " (correction)" : ""}`,
  );
  const text =
    d.changes.length > 0
      ? changes.join("; ")
      : d.text.split("\n").slice(0, 2).join(" | ").slice(0, 160);
  return `${seconds(d.receivedAt - t0)} ${d.channel}(${d.ruleId}) ${d.flight}: ${text}`;
}

/** The line a daemon logs once every part of it is up. */
const RUNNING = /"msg":"flightwatch (?:\w+ )?running/;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;
const clock = (w: World): string =>
  w.t0 === 0 ? "   -   " : seconds(Date.now() - w.t0).padStart(7);
const tail = (text: string): string => text.split("\n").slice(-15).join("\n");

async function waitForLogLine(proc: CliProcess, msg: RegExp): Promise<void> {
  await waitFor(async () => {
    if (proc.child.exitCode !== null)
      throw new Error(`daemon exited (${proc.child.exitCode}):\n${tail(proc.stderr())}`);
    return msg.test(proc.stdout());
  }, 60_000);
}

interface OpenWorld extends World {
  closeAll(): Promise<void>;
}

async function openWorld(options: TimelineOptions, intervalMs: number): Promise<OpenWorld> {
  const token = `fw-acceptance-${options.name.replace(/\W+/g, "-")}`;
  const behind = parseDuration(options.simulatorBehind ?? "0s", "simulatorBehind");
  const simulator = createSimulator({
    seed: options.seed ?? 7,
    flightsPerDay: 150,
    evolve: false,
    startMs: Date.now() - behind,
  });
  const now = simulator.clock.now();
  for (const flight of options.cast ?? []) {
    for (const record of castRecords(flight, now)) {
      if (simulator.store.findByName(record.flightName ?? "").length > 0) {
        throw new Error(
          `cast: the simulator already has a flight ${record.flightName}; pick another number`,
        );
      }
      simulator.apply({ kind: "add", flight: record });
    }
  }
  const upstream: UpstreamExchange[] = [];
  const sim = await startSimulator({
    simulator,
    live: false,
    tokens: [token],
    onResponse: (entry) => upstream.push({ ...entry, at: Date.now() }),
  });
  const redis = await testRedis(
    `acc-${options.name.replace(/\W+/g, "-").slice(0, 20)}`,
    options.redisUrl,
  );
  const slack = await startSlackReceiver();
  const smtp = await startSmtpReceiver();
  const rulesDir = await mkdtemp(join(tmpdir(), "fw-acceptance-"));
  const files = typeof options.rules === "string" ? { "rules.yaml": options.rules } : options.rules;
  for (const [name, text] of Object.entries(files)) await writeFile(join(rulesDir, name), text);

  const env: Record<string, string> = {
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    FLIGHTWATCH_PREFIX: redis.prefix,
    FLIGHT_API_BASE_URL: sim.baseUrl,
    FLIGHT_API_TOKEN: token,
    FLIGHTWATCH_RULES: rulesDir,
    AIRPORT_TIMEZONE: ZONE,
    POLL_INTERVAL: `${intervalMs}ms`,
    DELIVERY_STALL_TIMEOUT: "2s",
    HTTP_PORT: "off",
    HTTP_HOST: "127.0.0.1",
    LOG_LEVEL: "info",
    RULE_SLACK_URL: slack.url("/services/T0ACCEPT/B0ACCEPT"),
    RULE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SMTP_URL: smtp.url(),
    EMAIL_FROM: "flightwatch@airport.example",
    ...options.env,
  };
  const world: OpenWorld = {
    sim,
    upstream,
    redis,
    keys: redisKeys(redis.prefix),
    slack,
    smtp,
    webhook: undefined as unknown as WebhookReceiver,
    respond: () => ({ status: 204 }),
    daemons: [],
    started: [],
    intervalMs,
    t0: 0,
    spawn(slot, extra = {}) {
      if (world.daemons[slot]) throw new Error(`daemon ${slot} is already running`);
      const proc = spawnCli(["run", "--consumer", `daemon-${slot}`], {
        ...env,
        RULE_WEBHOOK_URL: world.webhook.url,
        ...extra,
      });
      world.daemons[slot] = proc;
      world.started.push({ slot, proc, killed: false });
      return proc;
    },
    async kill(slot) {
      const proc = world.daemons[slot];
      if (!proc) throw new Error(`daemon ${slot} is not running`);
      const entry = world.started.find((s) => s.proc === proc);
      if (entry) entry.killed = true;
      proc.child.kill("SIGKILL");
      await proc.exited;
      world.daemons[slot] = undefined;
    },
    async stop(slot) {
      const proc = world.daemons[slot];
      if (!proc) throw new Error(`daemon ${slot} is not running`);
      // A daemon started a moment ago may still be loading, before it listens for
      // signals (a SIGTERM then ends it as the default action does): wait for its first
      // log line (on stdout; a start-up error on stderr), which it writes once it listens.
      for (
        let waited = 0;
        proc.stdout() === "" &&
        proc.stderr() === "" &&
        proc.child.exitCode === null &&
        waited < 10_000;
        waited += 50
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      proc.child.kill("SIGTERM");
      const timer = setTimeout(() => proc.child.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timer);
      world.daemons[slot] = undefined;
      if (code !== 0)
        throw new Error(`daemon ${slot} exited ${code} on SIGTERM:\n${tail(proc.stderr())}`);
    },
    record(flight) {
      const records = sim.simulator.store.findByName(flight);
      const operating = records.find((r) => r.mainFlight === r.flightName) ?? records[0];
      if (!operating) throw new Error(`the simulator has no flight ${flight}`);
      return operating;
    },
    apply(action) {
      sim.simulator.apply(action);
    },
    note() {},
    statesBeforeCancel: new Map(),
    async closeAll() {
      for (const entry of world.started) {
        if (entry.proc.child.exitCode === null && entry.proc.child.signalCode === null) {
          entry.killed = true;
          entry.proc.child.kill("SIGKILL");
          await entry.proc.exited;
        }
      }
      await world.webhook.close();
      await slack.close();
      await smtp.close();
      await sim.close();
      await redis.cleanup();
      await rm(rulesDir, { recursive: true, force: true });
    },
  };
  world.webhook = await startWebhookReceiver({
    secret: WEBHOOK_SECRET,
    respond: (delivery, n) => world.respond(delivery, n),
  });
  return world;
}
