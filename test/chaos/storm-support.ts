/**
 * Pieces the storm and outage chaos timelines share with their fast subset in
 * `npm test` (test/acceptance/storm-subset.test.ts): owed gate moves on a cast of
 * flights, upstream storm phases (simulator faults switched on and off in pulses), a
 * webhook outage, and the checks beyond "every alert once" — `Retry-After` honoured,
 * dead letters as `flightwatch deliveries` lists them.
 */
import type { FaultSettings } from "../../src/simulator/http/faults.js";
import { type CastFlight, departure } from "../acceptance/cast.js";
import type { Delivery, Matcher } from "../acceptance/deliveries.js";
import type { Timeline, World } from "../acceptance/timeline.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";

/** A step time for `tl.at` from milliseconds after t0. */
export const at = (ms: number): string => `${Math.round(ms)}ms`;

/** `count` flight numbers from `first`: `flightNumbers("KL", 3101, 3)` → KL3101, KL3102, KL3103. */
export function flightNumbers(prefix: string, first: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${first + i}`);
}

/** One departure per number, all at gate D4, two hours out. */
export function departuresAtD4(names: readonly string[]): CastFlight[] {
  return names.map((name) => departure(name, { gate: "D4", in: "2h" }));
}

/** The gate a flight of a group is moved to: unique within the group, so a report reads. */
export function gateFor(flights: readonly string[], flight: string): string {
  return `D${10 + flights.indexOf(flight)}`;
}

/** A webhook rule on gate changes of the given flights (every gate change when none given). */
export function webhookRule(
  id: string,
  options: { flights?: readonly string[]; retry?: string } = {},
): string {
  const filter = options.flights
    ? `\n    flights: { flight: [${options.flights.join(", ")}] }`
    : "";
  return `
  - id: ${id}${filter}
    changes: [gate]
    channels:
      - type: webhook
        url: "\${RULE_WEBHOOK_URL}"
        secret: "\${RULE_WEBHOOK_SECRET}"
        retry: ${options.retry ?? "{ delays: [1s, 2s, 5s], for: 10m }"}`;
}

/** Moves `flight` to `gate` at `atMs` and expects `matcher` once (`window` as Step.expect takes it). */
export function owedMove(
  tl: Timeline,
  atMs: number,
  flight: string,
  gate: string,
  matcher: Matcher,
  window: { after?: string; within?: string } = {},
): void {
  tl.at(at(atMs)).gate(flight, gate).expect(matcher, window);
}

/** One phase of an upstream storm. */
export interface StormPhase {
  /** Shown in the timeline's report. */
  name: string;
  /** Length of the phase, ms. */
  durationMs: number;
  /**
   * The simulator's faults while the phase is "on" (every other setting off); a
   * function gets the pulse's number (0, 1, …) to vary them.
   */
  faults: Partial<FaultSettings> | ((pulse: number) => Partial<FaultSettings>);
  /** On/off pulses (bursts, spikes); absent: on for the whole phase. */
  pulse?: { onMs: number; offMs: number };
  /** Gate moves spread evenly over the phase, one flight each. */
  moves: number;
  /** How much later than one interval plus the tolerance a move's alert may come. */
  within: string;
}

const describeFaults = (faults: Partial<FaultSettings>): string =>
  Object.entries(faults)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");

/**
 * Schedules storm phases one after the other from `startMs`: faults switched on and
 * off (`replace`, so nothing of one phase leaks into the next) and the phase's gate
 * moves, each on a flight of its own from `flights` and each owed exactly one
 * delivery like `owed(flight, gate)`. Returns the end of the last phase and how many
 * flights were used.
 */
export function upstreamStorm(
  tl: Timeline,
  options: {
    /** The one delivery a move of `flight` to `gate` is owed. */
    owed: (flight: string, gate: string) => Matcher;
    flights: readonly string[];
    phases: readonly StormPhase[];
    startMs: number;
  },
): { endMs: number; used: number; moves: StormMove[] } {
  let t = options.startMs;
  let used = 0;
  const moves: StormMove[] = [];
  for (const phase of options.phases) {
    const faultsOf = (pulse: number) =>
      typeof phase.faults === "function" ? phase.faults(pulse) : phase.faults;
    const { onMs, offMs } = phase.pulse ?? { onMs: phase.durationMs, offMs: 0 };
    for (let start = 0, pulse = 0; start < phase.durationMs; start += onMs + offMs, pulse++) {
      const faults = faultsOf(pulse);
      tl.at(at(t + start)).do(`${phase.name}: faults on (${describeFaults(faults)})`, (w) => {
        w.sim.faults.replace(faults);
      });
      const off = t + Math.min(start + onMs, phase.durationMs);
      tl.at(at(off)).do(`${phase.name}: faults off`, (w) => {
        w.sim.faults.replace({});
      });
    }
    for (let i = 0; i < phase.moves; i++) {
      const flight = options.flights[used++];
      if (flight === undefined) throw new Error(`upstreamStorm: more moves than flights (${used})`);
      const gate = gateFor(options.flights, flight);
      const atMs = t + ((i + 0.5) * phase.durationMs) / phase.moves;
      const matcher = options.owed(flight, gate);
      moves.push({ phase: phase.name, flight, atMs, matcher });
      owedMove(tl, atMs, flight, gate, matcher, { within: phase.within });
    }
    t += phase.durationMs;
  }
  return { endMs: t, used, moves };
}

/** A gate move of a storm: which phase, which flight, when (nominal ms after t0). */
export interface StormMove {
  phase: string;
  flight: string;
  atMs: number;
  /** Only deliveries this matcher accepts answer the move (default: any about the flight). */
  matcher?: Matcher;
}

/**
 * Per phase, the longest time from a move to its delivery, for the log (the
 * timeline's windows are the bounds; this shows how close the storm came to them).
 */
export function latencyByPhase(
  moves: readonly StormMove[],
  deliveries: readonly Delivery[],
  t0: number,
): string[] {
  const worst = new Map<string, number>();
  for (const move of moves) {
    const d = deliveries.find((x) =>
      move.matcher ? move.matcher.matches(x) : x.flight === move.flight,
    );
    if (!d) continue;
    const ms = d.receivedAt - t0 - move.atMs;
    worst.set(move.phase, Math.max(worst.get(move.phase) ?? 0, ms));
  }
  return [...worst].map(([phase, ms]) => `${phase}: slowest delivery ${secs(ms)} after its move`);
}

/** A webhook outage: connection refused, then 503s, then healthy again. */
export interface WebhookOutage {
  startMs: number;
  /** The receiver does not listen (connection refused) this long. */
  refusedMs: number;
  /** Then it answers every request 503 this long. */
  unavailableMs: number;
}

/** Schedules the outage; returns when the receiver is healthy again, ms after t0. */
export function webhookOutage(tl: Timeline, outage: WebhookOutage): number {
  const answering = outage.startMs + outage.refusedMs;
  const recovered = answering + outage.unavailableMs;
  tl.at(at(outage.startMs)).do("webhook receiver down (connection refused)", (w) =>
    w.webhook.down(),
  );
  tl.at(at(answering)).do("webhook receiver up, answering 503", async (w) => {
    w.respond = () => ({ status: 503, body: "down for maintenance" });
    await w.webhook.up();
  });
  tl.at(at(recovered)).do("webhook receiver healthy (204)", (w) => {
    w.respond = () => ({ status: 204 });
  });
  return recovered;
}

/**
 * A gate move while a receiver is out: its alert is owed once, no sooner than
 * `recoveredMs` and at most `withinMs` (the longest retry delay with its jitter) plus
 * one interval and the tolerance after it.
 */
export function moveOwedAfterRecovery(
  tl: Timeline,
  move: { atMs: number; flight: string; gate: string; matcher: Matcher },
  recoveredMs: number,
  withinMs: number,
): void {
  const afterMs = Math.max(0, recoveredMs - move.atMs);
  owedMove(tl, move.atMs, move.flight, move.gate, move.matcher, {
    after: at(afterMs),
    within: at(withinMs),
  });
}

/** One request as a receiver or the simulator saw it. */
export interface Exchange {
  /** Epoch ms the request arrived. */
  startMs: number;
  /** Epoch ms it was answered. */
  endMs: number;
  status: number;
}

/**
 * Requests that came sooner after a 429 than its `Retry-After` allowed (every 429
 * here says `retryAfterMs`), described; empty when every one was honoured. The
 * requests must come from one sender one at a time (one daemon, one destination).
 * `slackMs` forgives timer granularity.
 */
export function retryAfterBroken(
  exchanges: readonly Exchange[],
  retryAfterMs: number,
  t0: number,
  slackMs = 25,
): string[] {
  const sorted = [...exchanges].sort((a, b) => a.startMs - b.startMs);
  const broken: string[] = [];
  sorted.forEach((e, i) => {
    if (e.status !== 429) return;
    const next = sorted[i + 1];
    if (next && next.startMs < e.endMs + retryAfterMs - slackMs) {
      broken.push(
        `429 answered at ${secs(e.endMs - t0)} said Retry-After ${retryAfterMs / 1000}s; the next request came at ${secs(next.startMs - t0)}`,
      );
    }
  });
  return broken;
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;

/** What `flightwatch deliveries --json` prints (the parts the chaos tests read). */
export interface DeliveriesListing {
  recent: { id: string; ruleId: string; result: string; reason?: string; attempt: number }[];
  deadLetters: {
    id: string;
    ruleId: string;
    type: string;
    reason: string;
    detail: string;
    attempts: number;
    flight: string;
  }[];
}

/** Runs `flightwatch deliveries --json` on the timeline's Redis prefix, as an operator would. */
export async function listDeliveries(world: World): Promise<DeliveriesListing> {
  const proc = spawnCli(
    ["deliveries", "--json", "--limit", "500"],
    testRedisEnv(world.redis.prefix),
  );
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`flightwatch deliveries exited ${code}:\n${proc.stderr()}`);
  return JSON.parse(proc.stdout()) as DeliveriesListing;
}
