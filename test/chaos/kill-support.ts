/**
 * What the chaos tests share, on top of the acceptance timelines (test/acceptance/):
 * the test's own ledger of the gate values it set, the oracle that judges the
 * deliveries against that ledger alone (never against flightwatch's store), and a
 * loop that SIGKILLs a daemon again and again — at random instants and at the named
 * crash points of src/crash-point.ts — and starts it again.
 *
 * The oracle, for every (rule, flight): the deliveries, one per notification id, form
 * the chain of gate values the flight went through — the first leaves the baseline,
 * each leaves the value the one before arrived at, the values arrive in the order they
 * were set, none twice, the last is the flight's final gate — and every value owed is
 * in it: one the flight kept OWED_MS while a daemon was up, or (rules without
 * grouping) one a poll saw and committed, as the daemons' logs tell. A value replaced
 * while no daemon looked may be skipped (the next alert then leaves the value before
 * it: the flight as it is now). A second copy under one id is allowed only with a kill
 * between the two (a kill after a send and before its acknowledgement repeats it under
 * the same id, which receivers dedupe on).
 */
import { expect } from "vitest";
import { type CastFlight, departure } from "../acceptance/cast.js";
import { type Delivery, readDeliveries } from "../acceptance/deliveries.js";
import type { TimelineResult, World } from "../acceptance/timeline.js";
import type { CliProcess } from "../support/cli-process.js";
import { completeLines } from "../support/cli-process.js";
import { sleep } from "../support/crash-run.js";

/** A seeded random stream (mulberry32): a failing run can be played again with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The seed of a run's random choices: CHAOS_SEED when set (to replay them), else a new one. */
export function chaosSeed(): number {
  const given = process.env.CHAOS_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

/** One gate value a test set, and when (epoch ms). */
export interface GateSet {
  flight: string;
  gate: string;
  at: number;
}

/** The test's own record of every gate it set: what the deliveries are judged against. */
export class GateLedger {
  readonly baseline = new Map<string, string>();
  readonly sets: GateSet[] = [];

  /** `flights`: each flight's gate before the test changes anything. */
  constructor(flights: Iterable<[string, string]>) {
    for (const [flight, gate] of flights) this.baseline.set(flight, gate);
  }

  /** Moves `flight` to `gate` in the simulator (pier with it, as the upstream does) and notes it. */
  apply(w: World, flight: string, gate: string): void {
    if (!this.baseline.has(flight)) throw new Error(`ledger: ${flight} is not in the cast`);
    if (this.values(flight).includes(gate)) {
      throw new Error(`ledger: ${flight} was at ${gate} before; every value must be new`);
    }
    w.apply({ kind: "update", target: { flightName: flight }, patch: { gate, pier: gate[0] } });
    this.sets.push({ flight, gate, at: Date.now() });
    w.note(`gate ${flight} → ${gate}`);
  }

  /** The flight's values in order: baseline first. */
  values(flight: string): string[] {
    return [
      this.baseline.get(flight) ?? "?",
      ...this.sets.filter((s) => s.flight === flight).map((s) => s.gate),
    ];
  }

  /** When the flight's gate was last set (0: never). */
  lastSetAt(flight: string): number {
    return this.sets.findLast((s) => s.flight === flight)?.at ?? 0;
  }

  /** Each value with the time it was set (baseline: 0) and replaced (last: undefined). */
  lifetimes(flight: string): { gate: string; from: number; to?: number }[] {
    const sets = this.sets.filter((s) => s.flight === flight);
    const out: { gate: string; from: number; to?: number }[] = [
      { gate: this.baseline.get(flight) ?? "?", from: 0, to: sets[0]?.at },
    ];
    for (const [i, s] of sets.entries()) {
      out.push({ gate: s.gate, from: s.at, to: sets[i + 1]?.at });
    }
    return out;
  }
}

/** A rule the oracle judges: which channel it uses and which flights it covers. */
export interface GateRule {
  ruleId: string;
  channel: Delivery["channel"];
  flights: readonly string[];
  /** It has a `group_wait`: a value seen but replaced within the wait is merged away. */
  grouped?: boolean;
}

/** One way a daemon process was up: from its "running" log line until it died (or still up). */
export interface UpSpan {
  from: number;
  to?: number;
}

/** A poll a daemon committed, as it logged it: from its start to its log line, epoch ms. */
export interface CommittedPoll {
  from: number;
  to: number;
}

/** How long a value must stay, inside one up span of a daemon, to be owed. */
export const OWED_MS = 5_000;
/**
 * What the daemons have seen, to tell which values are owed: their up spans, the polls
 * they committed, and the kills.
 */
export interface Sightings {
  up: readonly UpSpan[];
  polls: readonly CommittedPoll[];
  kills: readonly number[];
  /**
   * Spans in which Redis had lost flightwatch's data: from the loss until the silent
   * re-baseline committed. What was current then may be taken in silently (the docs
   * promise changes after the re-baseline, and name what was outstanding at the loss),
   * so a chain may go on from any value current then.
   */
  resets?: readonly ResetSpan[];
}

/** A loss of Redis's data and the re-baseline after it, epoch ms. */
export interface ResetSpan {
  from: number;
  to: number;
}

/**
 * Every poll the world's daemons logged as committed (run them with LOG_LEVEL=debug:
 * polls that found nothing are logged at debug). A poll is logged after its commit, so
 * a line a killed daemon wrote is a commit that happened.
 */
export function committedPolls(w: World): CommittedPoll[] {
  const polls: CommittedPoll[] = [];
  for (const { proc } of w.started) {
    for (const line of completeLines(proc.stdout())) {
      if (!line.includes('"poll":')) continue;
      const fields = JSON.parse(line) as { time: string; outcome?: string; durationMs?: number };
      if (fields.outcome !== "committed" || typeof fields.durationMs !== "number") continue;
      const to = Date.parse(fields.time);
      polls.push({ from: to - fields.durationMs, to });
    }
  }
  return polls;
}

/**
 * The gate a delivery carries: from and to. Webhooks carry it as a structured change;
 * email in words (`gate D7 → D9`). Undefined when it carries no gate change.
 */
export function gateMove(d: Delivery): { old: string; new: string } | undefined {
  if (d.channel === "webhook") {
    const gates = d.changes.filter((c) => c.field === "gate");
    if (gates.length !== 1) return undefined;
    const c = gates[0];
    return typeof c?.old === "string" && typeof c.new === "string"
      ? { old: c.old, new: c.new }
      : undefined;
  }
  const m = /\bgate:? ([A-Z]\d+) → ([A-Z]\d+)/.exec(d.text);
  return m ? { old: m[1] as string, new: m[2] as string } : undefined;
}

/** What one delivery says, for comparing copies and naming it in reports. */
export function contentOf(d: Delivery): string {
  const move = gateMove(d);
  const other = d.changes.filter((c) => c.field !== "gate").map((c) => c.field);
  return `${d.channel}(${d.ruleId}) ${d.flight}: ${move ? `${move.old}→${move.new}` : "no gate move"}${
    other.length ? ` + ${other.join(",")}` : ""
  }`;
}

/** What the oracle found. */
export interface Verdict {
  problems: string[];
  /** Distinct notifications judged. */
  notifications: number;
  /** Copies under an id already received (each after a kill). */
  repeats: number;
  /** Values owed (summed over rules and flights), of which owed because a committed poll saw them; values delivered. */
  owed: number;
  owedByPoll: number;
  delivered: number;
}

/**
 * Judges `deliveries` against the ledger (see the module comment). A repeat must
 * straddle one of the `seen.kills`. A value is owed when it stayed OWED_MS inside one up
 * span of a daemon — or, for a rule without grouping, when a committed poll ran from
 * start to end while it was current: that poll, or one before it, committed the change
 * to the outbox, and a committed change is never lost.
 */
export function judgeGateChains(
  deliveries: readonly Delivery[],
  ledger: GateLedger,
  rules: readonly GateRule[],
  seen: Sightings,
  end = Date.now(),
): Verdict {
  const { kills } = seen;
  const problems: string[] = [];
  let repeats = 0;
  // One per id; copies must say the same and come after a kill.
  const byId = new Map<string, Delivery>();
  for (const d of deliveries) {
    const first = byId.get(d.id);
    if (!first) {
      byId.set(d.id, d);
      continue;
    }
    repeats++;
    // Mail is compared by what it says: its MIME boundaries differ from send to send.
    const same = d.channel === "email" || d.text === first.text;
    if (contentOf(first) !== contentOf(d) || !same) {
      problems.push(`id ${d.id} carried two contents: ${contentOf(first)} / ${contentOf(d)}`);
    }
    if (!kills.some((k) => k >= first.receivedAt && k <= d.receivedAt)) {
      problems.push(`id ${d.id} (${contentOf(d)}) received twice with no kill between`);
    }
  }
  const unique = [...byId.values()];
  let owedCount = 0;
  let owedByPoll = 0;
  let delivered = 0;
  const judged = new Set<Delivery>();
  for (const rule of rules) {
    for (const flight of rule.flights) {
      const mine = unique.filter(
        (d) => d.channel === rule.channel && d.ruleId === rule.ruleId && d.flight === flight,
      );
      for (const d of mine) judged.add(d);
      const values = ledger.values(flight);
      const where = (gate: string) => values.indexOf(gate);
      const moves = mine.map((d) => ({ d, move: gateMove(d) }));
      for (const { d, move } of moves) {
        if (!move || where(move.new) < 1 || d.changes.some((c) => c.field !== "gate")) {
          problems.push(`unexpected: ${contentOf(d)} (set: ${values.join(" → ")})`);
        }
      }
      const chain = moves
        .filter((m) => m.move && where(m.move.new) >= 1)
        .sort((a, b) => where(a.move?.new ?? "") - where(b.move?.new ?? ""));
      const label = `${rule.ruleId}/${rule.channel} ${flight}`;
      const lifetimes = ledger.lifetimes(flight);
      // Values a re-baseline after a loss may have taken in silently (current during it).
      const rebaselined = new Set(
        lifetimes
          .filter((l) => (seen.resets ?? []).some((r) => current(l, r, end)))
          .map((l) => l.gate),
      );
      let at = values[0] as string;
      for (const { d, move } of chain) {
        if (!move) continue;
        if (move.new === at) problems.push(`twice: ${contentOf(d)}`);
        else if (move.old !== at && !(rebaselined.has(move.old) && where(move.old) > where(at))) {
          problems.push(`${label}: ${contentOf(d)} does not leave ${at} (the value before it)`);
        }
        at = move.new;
      }
      const final = values.at(-1) as string;
      // A final value taken in by a re-baseline (and never changed since) is not told.
      if (at !== final && !rebaselined.has(final)) {
        problems.push(`${label}: the chain ends at ${at}, the flight is at ${final}`);
      }
      // In order of arrival too: never a value after a newer one, never a lower sequence.
      const byArrival = moves.filter((m) => m.move && where(m.move.new) >= 1);
      for (let i = 1; i < byArrival.length; i++) {
        const before = byArrival[i - 1];
        const after = byArrival[i];
        if (!before?.move || !after?.move) continue;
        if (where(after.move.new) < where(before.move.new)) {
          problems.push(
            `${label}: ${contentOf(after.d)} arrived after the newer ${contentOf(before.d)}`,
          );
        }
        if ((after.d.sequence ?? 0) < (before.d.sequence ?? 0)) {
          problems.push(
            `${label}: sequence ${after.d.sequence} arrived after ${before.d.sequence} (${contentOf(after.d)})`,
          );
        }
      }
      const arrived = new Set(chain.map((m) => m.move?.new));
      delivered += arrived.size;
      for (const value of lifetimes.slice(1)) {
        const why = owed(value, seen, end, rule.grouped ?? false);
        if (!why) continue;
        owedCount++;
        if (why === "poll") owedByPoll++;
        if (!arrived.has(value.gate)) {
          problems.push(
            `${label}: ${value.gate} (set at ${new Date(value.from).toISOString()}, current ${
              ((value.to ?? end) - value.from) / 1000
            } s, ${why === "poll" ? "seen by a committed poll" : "with a daemon up"}) never arrived`,
          );
        }
      }
    }
  }
  for (const d of unique) if (!judged.has(d)) problems.push(`unexpected: ${contentOf(d)}`);
  return {
    problems,
    notifications: unique.length,
    repeats,
    owed: owedCount,
    owedByPoll,
    delivered,
  };
}

/** Whether a value is owed, and why (see judgeGateChains). */
function owed(
  value: { from: number; to?: number },
  seen: Sightings,
  end: number,
  grouped: boolean,
): "kept" | "poll" | undefined {
  let to = value.to ?? end;
  // A value current around a loss of Redis's data (from OWED_MS before it until the
  // re-baseline) went into the re-baseline silently: it is owed only if it was owed
  // before that — kept, or seen by a poll, early enough to be delivered before the loss.
  const absorbed = (seen.resets ?? []).find((r) => current(value, r, end));
  if (absorbed) to = Math.min(to, absorbed.from - OWED_MS);
  if (to <= value.from) return undefined;
  // Time in a reset watches nothing, and a poll committed just before a loss may have
  // lost its changes with it.
  const resets = seen.resets ?? [];
  const up = seen.up.flatMap((s) => outside({ from: s.from, to: s.to ?? end }, resets));
  const kept = up.some((s) => Math.min(to, s.to) - Math.max(value.from, s.from) >= OWED_MS);
  if (kept) return "kept";
  if (grouped) return undefined;
  const safe = (p: CommittedPoll) => !resets.some((r) => p.to < r.to && p.to > r.from - OWED_MS);
  return seen.polls.some((p) => p.from > value.from && p.to < to && safe(p)) ? "poll" : undefined;
}

/** Whether a value was current at some moment from OWED_MS before a loss until its re-baseline. */
function current(value: { from: number; to?: number }, reset: ResetSpan, end: number): boolean {
  return value.from <= reset.to && (value.to ?? end) >= reset.from - OWED_MS;
}

/** The parts of a span outside every reset, a reset reaching OWED_MS back from its loss. */
function outside(span: ResetSpan, resets: readonly ResetSpan[]): ResetSpan[] {
  let parts = [span];
  for (const r of resets) {
    const from = r.from - OWED_MS;
    parts = parts.flatMap((p) =>
      p.to <= from || p.from >= r.to
        ? [p]
        : [
            ...(p.from < from ? [{ from: p.from, to: from }] : []),
            ...(p.to > r.to ? [{ from: r.to, to: p.to }] : []),
          ],
    );
  }
  return parts;
}

/** The line a daemon logs once every part of it is up (as the timeline waits for). */
const RUNNING = /"msg":"flightwatch (?:\w+ )?running/;

/** When a process logged that it was running (epoch ms), if it did. */
export function runningAt(proc: CliProcess): number | undefined {
  const line = completeLines(proc.stdout()).find((l) => RUNNING.test(l));
  if (!line) return undefined;
  return Date.parse((JSON.parse(line) as { time: string }).time);
}

/** Waits until a process logs that it is running; false if it died or `timeoutMs` passed. */
export async function untilRunning(proc: CliProcess, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (RUNNING.test(proc.stdout())) return true;
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return false;
    await sleep(50);
  }
  return false;
}

/** One kill of the loop. */
export interface Kill {
  /** Epoch ms the process was seen dead. */
  at: number;
  /** `random`: SIGKILL from outside; else the crash point it killed itself at. */
  how: string;
  /** The daemon had logged "running" when it died. */
  wasRunning: boolean;
}

/** How the kill loop goes. */
export interface KillLoopOptions {
  slot: number;
  kills: number;
  /** Crash points taken in turn by every second kill (`FLIGHTWATCH_CRASH_AT`). */
  crashPoints: readonly string[];
  random: () => number;
  /**
   * Random kills: a third of them this long after the process starts (most often
   * while it starts up), the others this long after it logged "running" — uniform
   * between the two, ms.
   */
  randomAfterMs: { start: readonly [number, number]; running: readonly [number, number] };
  /** A crash point is reached at its 1st to n-th pass. */
  maxPass: number;
  /** A process that has not reached its crash point after this long is killed from outside. */
  pointTimeoutMs: number;
  /** Variables for every start. */
  env?: Record<string, string>;
}

/**
 * Kills the daemon of `slot` `kills` times and starts it again each time: even kills
 * at a random instant (SIGKILL from outside), odd ones by the process itself at a
 * crash point it was started armed with (killed from outside if it never gets there).
 * Every death must be a SIGKILL. Leaves an unarmed daemon running.
 */
export async function killLoop(w: World, options: KillLoopOptions): Promise<Kill[]> {
  const kills: Kill[] = [];
  for (let k = 0; k < options.kills; k++) {
    const proc = w.daemons[options.slot];
    if (!proc) throw new Error(`kill loop: daemon ${options.slot} is not running`);
    const armed = armedAt.get(proc);
    let how = "random";
    if (armed === undefined) {
      const early = options.random() < 1 / 3;
      const [lo, hi] = early ? options.randomAfterMs.start : options.randomAfterMs.running;
      const delay = lo + Math.floor(options.random() * (hi - lo));
      if (!early) await untilRunning(proc);
      const from = early ? (spawnedAt.get(proc) ?? Date.now()) : Date.now();
      await sleep(Math.max(0, from + delay - Date.now()));
      await w.kill(options.slot);
    } else {
      const died = await Promise.race([proc.exited, sleep(options.pointTimeoutMs)]);
      if (died === undefined) {
        w.note(`daemon ${options.slot} never reached ${armed}; killed from outside`);
        await w.kill(options.slot);
      } else {
        how = armed;
        const entry = w.started.find((s) => s.proc === proc);
        if (entry) entry.killed = true;
        w.daemons[options.slot] = undefined;
      }
    }
    const code = await proc.exited;
    expect(code, `daemon ${options.slot} died otherwise than by SIGKILL`).toBe("SIGKILL");
    const wasRunning = RUNNING.test(proc.stdout());
    kills.push({ at: Date.now(), how, wasRunning });
    deaths.set(proc, Date.now());
    w.note(`daemon ${options.slot} died (${how}${wasRunning ? "" : ", before it was running"})`);
    // A random kill is followed by an armed start, a crash point by an unarmed one.
    let env = options.env ?? {};
    let point: string | undefined;
    if (k % 2 === 0 && k < options.kills - 1) {
      const name = options.crashPoints[(k / 2) % options.crashPoints.length] as string;
      point = `${name}:${1 + Math.floor(options.random() * options.maxPass)}`;
      env = { ...env, FLIGHTWATCH_CRASH_AT: point };
      w.note(`daemon ${options.slot} starts armed to crash at ${point}`);
    }
    const next = w.spawn(options.slot, env);
    spawnedAt.set(next, Date.now());
    if (point) armedAt.set(next, point);
  }
  return kills;
}

/** When each process was started by the loop, the crash point it was armed with, when it died. */
const spawnedAt = new WeakMap<CliProcess, number>();
const armedAt = new WeakMap<CliProcess, string>();
const deaths = new WeakMap<CliProcess, number>();

/** Notes that a process died at `at` (a kill outside the loop), for its up span. */
export function noteDeath(proc: CliProcess, at = Date.now()): void {
  deaths.set(proc, at);
}

/** The up spans of every daemon the world started (from "running" to its death, if it died). */
export function upSpans(w: World): UpSpan[] {
  const spans: UpSpan[] = [];
  for (const { proc } of w.started) {
    const from = runningAt(proc);
    if (from === undefined) continue;
    const to = deaths.get(proc);
    spans.push(to === undefined ? { from } : { from, to });
  }
  return spans;
}

/** How a gate mover goes. */
export interface GateMoverOptions {
  /** A change this often (± half of it). */
  everyMs: number;
  /** A flight changes again only this long after its last change: each value is owed. */
  minGapMs: number;
  random: () => number;
}

/**
 * Moves the gate of a random flight among those left alone at least `minGapMs` to a
 * gate never used (the flight's pier letter and a running number); false when none is
 * free.
 */
export function moveOneGate(
  w: World,
  ledger: GateLedger,
  minGapMs: number,
  random: () => number,
): boolean {
  const now = Date.now();
  const free = [...ledger.baseline.keys()].filter((f) => now - ledger.lastSetAt(f) >= minGapMs);
  const flight = free[Math.floor(random() * free.length)];
  if (!flight) return false;
  const letter = (ledger.baseline.get(flight) ?? "K")[0] as string;
  // Numbered over the whole ledger: values stay new across movers.
  ledger.apply(w, flight, `${letter}${101 + ledger.sets.length}`);
  return true;
}

/** Moves gates in the background (moveOneGate about every `everyMs`) until stopped. */
export function moveGates(
  w: World,
  ledger: GateLedger,
  options: GateMoverOptions,
): { stop(): Promise<void>; readonly count: number } {
  let stopped = false;
  let n = 0;
  const loop = (async () => {
    while (!stopped) {
      await sleep(options.everyMs / 2 + Math.floor(options.random() * options.everyMs));
      if (!stopped && moveOneGate(w, ledger, options.minGapMs, options.random)) n++;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
    get count() {
      return n;
    },
  };
}

/** The gate scenario of the chaos tests: twelve departures, three rules on their gates. */
export interface GateScenario {
  cast: CastFlight[];
  /** The rules: every gate change to a signed webhook, to a grouped one, and mail to a desk. */
  rules: string;
  judged: GateRule[];
  ledger: GateLedger;
}

const PIERS = ["B", "C", "D", "E", "F", "G", "H", "M"];

/**
 * Twelve departures numbered from `first` (two sold under partner numbers too, with
 * `codeshares`), leaving over the next hours, and the rules the ledger judges: a signed
 * webhook of every gate change, a grouped one (`group_wait`), and an email to a duty
 * desk about four of the flights.
 */
export function gateScenario(first: number, codeshares = false): GateScenario {
  const flights = Array.from({ length: 12 }, (_, i) => `KL${first + i}`);
  const duty = flights.slice(0, 4);
  const cast = flights.map((name, i) =>
    departure(name, {
      gate: `${PIERS[i % PIERS.length]}${i + 1}`,
      in: `${2 + i / 4}h`,
      // One physical flight, one alert, whatever numbers it is sold under.
      ...(codeshares && i < 2 ? { codeshares: [`DL${9101 + i}`, `AF${7101 + i}`] } : {}),
    }),
  );
  const rules = `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
  - id: gates-grouped
    changes: [gate]
    group_wait: 1s
    channels:
      - { type: webhook, name: grouped, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}", format: json }
  - id: duty
    flights: { flight: [${duty.join(", ")}] }
    changes: [gate]
    channels: [{ type: email, to: [duty@example.com], subject: "{flight}: {changes}" }]
`;
  return {
    cast,
    rules,
    judged: [
      { ruleId: "gates", channel: "webhook", flights },
      { ruleId: "gates-grouped", channel: "webhook", flights, grouped: true },
      { ruleId: "duty", channel: "email", flights: duty },
    ],
    ledger: new GateLedger(cast.map((f) => [f.name, f.gate] as [string, string])),
  };
}

/** Judges the world's deliveries again and again until nothing is missing, or `ms` passed. */
export async function untilJudged(judge: () => Verdict, ms = 60_000): Promise<Verdict> {
  const deadline = Date.now() + ms;
  let verdict = judge();
  while (verdict.problems.length > 0 && Date.now() < deadline) {
    await sleep(250);
    verdict = judge();
  }
  return verdict;
}

/**
 * Judges a played timeline by the ledger and returns the verdict; throws the report
 * (the timeline's, the oracle's figures and every problem) when anything is off, or
 * when the step never converged.
 */
export function finalVerdict(
  result: TimelineResult,
  scenario: Pick<GateScenario, "ledger" | "judged">,
  seen: Sightings,
  options: { seed: number; converged: boolean; ignore?: (problem: string) => boolean },
): { verdict: Verdict; report: string } {
  const verdict = judgeGateChains(result.deliveries, scenario.ledger, scenario.judged, seen);
  const problems = [...result.problems.filter((p) => !options.ignore?.(p)), ...verdict.problems];
  const report = `${result.report}\noracle (seed ${options.seed}): ${verdict.notifications} notifications, ${
    verdict.repeats
  } repeats after kills, ${verdict.delivered} values delivered, ${verdict.owed} owed (${
    verdict.owedByPoll
  } because a committed poll saw them)${
    verdict.problems.length ? `\n${verdict.problems.map((p) => `  - ${p}`).join("\n")}` : ""
  }`;
  if (problems.length > 0 || !options.converged) {
    throw new Error(`${report}\nproblems:\n  - ${problems.join("\n  - ")}`);
  }
  // CHAOS_REPORT=1 prints the whole timeline of a passing run too.
  if (process.env.CHAOS_REPORT) console.info(report);
  return { verdict, report };
}

/** The world's deliveries judged by the ledger, with what its daemons saw. */
export function judgeWorld(
  w: World,
  scenario: Pick<GateScenario, "ledger" | "judged">,
  seen: Sightings,
): Verdict {
  return judgeGateChains(readDeliveries(w).deliveries, scenario.ledger, scenario.judged, seen);
}
