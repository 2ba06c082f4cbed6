/**
 * Rule matching throughput on one core: change events matched per second against a
 * RuleSet of 100 and of 100,000 rules, plus the time and heap it takes to build the
 * 100,000-rule set. Events are the simulator's: a generated airport diffed every five
 * simulated minutes through fold → diff → change event, as the detector does (baseline
 * poll left out). Rules are mostly passenger rules — one flight number each, drawn from
 * the simulator's numbers (operating and codeshare), for a date in the coming week, with
 * a few selectors — plus ~50 ops rules (pier, airline, direction filters) and one rule
 * taking every change.
 */
import { loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { ChangeEvent } from "../src/diff/change.js";
import { normaliseFlightNumber } from "../src/rules/flight-number.js";
import { RuleSet } from "../src/rules/match/rule-matcher.js";
import type { ChangeSelector, FlightFilter, Rule } from "../src/rules/rule.js";
import { Random } from "../src/simulator/random.js";
import { fromLocalDateTime, toLocalDate } from "../src/time/local-time.js";
import type { Benchmark } from "./benchmark.js";
import { BENCH_START, BENCH_ZONE, simulatedPolls } from "./simulated-polls.js";

const ZONE = BENCH_ZONE;
const START = BENCH_START;
/** Twelve simulated hours of polls. */
const POLLS = 144;
/** Passenger rules are for flights within this many days from the simulated start. */
const PASSENGER_DAYS = 7;
const OPS_RULES = 50;
/** Timed passes over all events (the 100-rule set is fast: more passes). */
const PASSES = { small: 20, large: 5 };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Events of one poll with the moment it was matched at. */
interface Poll {
  now: number;
  events: ChangeEvent[];
}

/**
 * The simulator's polls as change events, and every flight name seen. Each poll reads
 * the records changed since the last one, as the detector's keyset read does.
 */
function pollsOfSimulator(): { polls: Poll[]; names: string[] } {
  const { polls, names } = simulatedPolls(POLLS);
  return { polls: polls.map((p) => ({ now: p.now, events: p.flights.flat() })), names };
}

const PASSENGER_SELECTORS: ChangeSelector[][] = [
  [
    { name: "gate", kinds: ["gate"], withinMs: 3 * HOUR },
    {
      name: "departure_time",
      kinds: ["time"],
      fields: ["publicEstimatedOffBlockTime", "actualOffBlockTime"],
      delayAtLeastMinutes: 15,
      shiftAtLeastMinutes: 10,
    },
    { name: "cancelled", kinds: ["state"], states: ["CNX"], actions: ["added"] },
  ],
  [
    { name: "state", kinds: ["state"], states: ["BRD", "GCL", "GTD"] },
    { name: "gate", kinds: ["gate"] },
    { name: "cancelled", kinds: ["state"], states: ["CNX"], actions: ["added"] },
    { name: "diverted", kinds: ["state"], states: ["DIV"], actions: ["added"] },
  ],
  [
    {
      name: "arrival_time",
      kinds: ["time"],
      fields: ["estimatedLandingTime", "actualLandingTime"],
      delayAtLeastMinutes: 30,
      shiftAtLeastMinutes: 30,
    },
    { name: "belt", kinds: ["belt"], withinMs: HOUR },
  ],
  [
    {
      name: "departure_time",
      kinds: ["time"],
      fields: ["publicEstimatedOffBlockTime", "actualOffBlockTime"],
      shiftAtLeastMinutes: 10,
    },
    { name: "gate", kinds: ["gate"], withinMs: 3 * HOUR },
  ],
];

const source = { file: "bench.yaml", line: 1, column: 1 };

function makeRule(id: string, flights: FlightFilter, changes?: ChangeSelector[]): Rule {
  const rule: Rule = {
    id,
    labels: {},
    source,
    flights,
    channels: [{ type: "console", name: "console", source }],
    groupWaitMs: 0,
    coolDownMs: 0,
  };
  if (changes) rule.changes = changes;
  return rule;
}

/** Local-day windows from the simulated start's date on, for passenger rules. */
function dayWindows(): FlightFilter["schedule"][] {
  const first = toLocalDate(START, ZONE);
  const out: FlightFilter["schedule"][] = [];
  for (let d = 0; d <= PASSENGER_DAYS; d++) {
    const from = fromLocalDateTime(`${first}T00:00`, ZONE) as number;
    const day = toLocalDate(from + d * 24 * HOUR + 2 * HOUR, ZONE);
    const start = fromLocalDateTime(`${day}T00:00`, ZONE) as number;
    const end = fromLocalDateTime(`${toLocalDate(start + 26 * HOUR, ZONE)}T00:00`, ZONE) as number;
    out.push({ from: { at: start }, to: { at: end } });
  }
  return out;
}

function opsRules(): Rule[] {
  const piers = ["B", "C", "D", "E", "F", "G", "H", "M"];
  const airlines = ["KL", "HV", "DL", "AF", "U2", "BA", "LH", "KLM", "TRA"];
  const rules: Rule[] = [];
  for (let i = 0; rules.length < OPS_RULES; i++) {
    const pier = piers[i % piers.length] as string;
    const airline = airlines[i % airlines.length] as string;
    const next6h = { from: { fromNowMs: -HOUR }, to: { fromNowMs: 6 * HOUR } };
    switch (i % 5) {
      case 0:
        rules.push(
          makeRule(`ops-pier-${i}`, { piers: [pier], not: { serviceTypes: ["F"] } }, [
            { name: "gate", kinds: ["gate"] },
            { name: "state", kinds: ["state"], states: ["GCH", "DEL", "CNX"] },
          ]),
        );
        break;
      case 1:
        rules.push(
          makeRule(`ops-airline-${i}`, { airlines: [airline], direction: "D", schedule: next6h }, [
            { name: "departure_time", kinds: ["time"], delayAtLeastMinutes: 30 },
            { name: "cancelled", kinds: ["state"], states: ["CNX"], actions: ["added"] },
          ]),
        );
        break;
      case 2:
        rules.push(
          makeRule(`ops-arrivals-${i}`, { direction: "A", airlines: [airline] }, [
            { name: "belt", kinds: ["belt"] },
            { name: "diverted", kinds: ["state"], states: ["DIV"], actions: ["added"] },
          ]),
        );
        break;
      case 3:
        rules.push(
          makeRule(`ops-gates-${i}`, { gates: [`${pier}*`], direction: "D" }, [
            { name: "gate", kinds: ["gate"], withinMs: 2 * HOUR },
          ]),
        );
        break;
      default:
        rules.push(
          makeRule(`ops-all-${i}`, {
            piers: [pier, piers[(i + 1) % piers.length] as string],
            operational: true,
          }),
        );
    }
  }
  return rules;
}

/** `count` rules: passenger rules up to the last 51, then the ops rules and one taking everything. */
function ruleSet(count: number, names: readonly string[], random: Random): Rule[] {
  const windows = dayWindows();
  const ops = opsRules();
  const rules: Rule[] = [];
  const passengers = count - ops.length - 1;
  for (let i = 0; i < passengers; i++) {
    const name = names[random.int(0, names.length - 1)] as string;
    // As the loader writes them: normalised (`KL1395`, where the upstream says `KL1395` or `KL0601`).
    const flights: FlightFilter = { flights: [normaliseFlightNumber(name) ?? name] };
    flights.schedule = windows[random.int(0, windows.length - 1)];
    rules.push(makeRule(`pax-${i}`, flights, PASSENGER_SELECTORS[i % PASSENGER_SELECTORS.length]));
  }
  rules.push(...ops, makeRule("everything", {}));
  return rules;
}

/** Matches every poll `passes` times; returns events per second and matches per pass. */
function timeMatching(
  set: RuleSet,
  polls: readonly Poll[],
  passes: number,
): { perSecond: number; matches: number } {
  let matches = 0;
  // One untimed pass first, so the timed ones run optimised code.
  for (const poll of polls) set.match(poll.events, poll.now);
  const start = process.hrtime.bigint();
  for (let p = 0; p < passes; p++) {
    for (const poll of polls) matches += set.match(poll.events, poll.now).length;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const events = polls.reduce((n, poll) => n + poll.events.length, 0) * passes;
  return { perSecond: events / seconds, matches: matches / passes };
}

const fmt = (n: number): string => Math.round(n).toLocaleString("en");
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/** `gc()` without `--expose-gc` on the command line, for heap figures. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

export const rulesBenchmark: Benchmark = {
  name: "rules",
  title: "Rule matching (one core)",
  async run() {
    const { polls, names } = pollsOfSimulator();
    console.log(
      `load average:       ${loadavg()[0]?.toFixed(2)} (figures drop when other work shares the cores)`,
    );
    const events = polls.reduce((n, poll) => n + poll.events.length, 0);
    console.log(
      `events:             ${fmt(events)} change events from ${polls.length} polls 5 min apart (simulator, ${fmt(names.length)} flight numbers)`,
    );
    const random = new Random(5);
    const gc = collector();

    const small = new RuleSet(ruleSet(100, names, random));
    const s = timeMatching(small, polls, PASSES.small);
    console.log(
      `100 rules:          ${fmt(s.perSecond)} events/s (${fmt(s.matches)} matches per pass)`,
    );

    // Ops rules keyed by gate (a team a gate): filed under their gates, not tried on every change.
    const gates = new Set<string>();
    for (const poll of polls) {
      for (const e of poll.events) {
        const gate = e.current?.gate;
        if (typeof gate === "string") gates.add(gate);
      }
    }
    const byGate = new RuleSet(
      [...gates].map((gate, i) =>
        makeRule(`gate-${i}`, { gates: [gate] }, [{ name: "gate", kinds: ["gate"] }]),
      ),
    );
    const g = timeMatching(byGate, polls, PASSES.small);
    console.log(
      `${fmt(gates.size)} rules, a gate each: ${fmt(g.perSecond)} events/s (${fmt(g.matches)} matches per pass; 100 rules above)`,
    );

    gc();
    const heapEmpty = process.memoryUsage().heapUsed;
    const rules = ruleSet(100_000, names, random);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const buildStart = process.hrtime.bigint();
    const large = new RuleSet(rules);
    const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;
    gc();
    const heapAfter = process.memoryUsage().heapUsed;
    console.log(
      `100,000 rules:      built in ${fmt(buildMs)} ms, ${mb(heapAfter - heapBefore)} MB heap beyond the rules themselves (${mb(heapBefore - heapEmpty)} MB)`,
    );
    const l = timeMatching(large, polls, PASSES.large);
    console.log(
      `100,000 rules:      ${fmt(l.perSecond)} events/s (aim ≥ 100,000; ${fmt(l.matches)} matches per pass, ${(l.matches / events).toFixed(2)} per event)`,
    );
    let hit = 0;
    for (const poll of polls) {
      const matched = new Set<string>();
      for (const m of large.match(poll.events, poll.now)) {
        if (m.rule.id.startsWith("pax-")) matched.add(m.event.id);
      }
      hit += matched.size;
    }
    console.log(
      `passenger hits:     ${((100 * hit) / events).toFixed(1)}% of events match at least one passenger rule`,
    );
  },
};
