/**
 * Fault injection for the simulator: server errors, 429s with `Retry-After`,
 * latency, truncated bodies, dropped connections and a `lastUpdatedAt` stamp lag,
 * all changeable while running. Decisions come from a seeded PRNG, and every
 * request draws the same number of values whatever the settings, so one fault's
 * rate can change without shifting the sequence of the others: a run reproduces.
 */
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import { z } from "zod";
import { ConfigError } from "../../errors.js";
import type { FlightStore } from "../flight-store.js";

/** Fault settings; rates are probabilities per request, from 0 to 1. */
export interface FaultSettings {
  /** Share of requests answered with a 5xx status. */
  serverErrorRate: number;
  /** Statuses a 5xx fault picks from, uniformly. */
  serverErrorStatuses: number[];
  /** Share of requests answered 429. */
  rateLimitRate: number;
  /** `Retry-After` seconds sent with a 429. */
  retryAfterSeconds: number;
  /** Fixed delay before every response, ms. */
  latencyMs: number;
  /** Extra delay, uniform in [0, jitterMs), ms. */
  jitterMs: number;
  /** Share of 200 responses whose body is cut mid-JSON before the connection closes. */
  truncateRate: number;
  /** Share of requests whose connection is destroyed before any response. */
  dropRate: number;
  /** `lastUpdatedAt` is stamped this many ms in the past (sets the store's stampLagMs). */
  stampLagMs: number;
}

/** Settings with every fault off. */
export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze({
  serverErrorRate: 0,
  serverErrorStatuses: [500, 502, 503],
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  latencyMs: 0,
  jitterMs: 0,
  truncateRate: 0,
  dropRate: 0,
  stampLagMs: 0,
});

const rate = z.number().min(0).max(1);
const nonNegative = z.number().min(0).max(86_400_000);

/** Schema of a (partial) settings object, as the admin interface receives it. */
export const faultSettingsSchema = z
  .object({
    serverErrorRate: rate,
    serverErrorStatuses: z.array(z.number().int().min(500).max(599)).min(1),
    rateLimitRate: rate,
    retryAfterSeconds: z.number().int().min(0).max(86_400),
    latencyMs: nonNegative,
    jitterMs: nonNegative,
    truncateRate: rate,
    dropRate: rate,
    stampLagMs: nonNegative,
  })
  .partial()
  .strict();

/** Validates a partial settings object; throws a ConfigError naming the bad field. */
export function parseFaultSettings(input: unknown): Partial<FaultSettings> {
  const result = faultSettingsSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join(".") || "faults";
  throw new ConfigError(`faults.${field}`, issue?.message ?? "invalid fault settings");
}

/** How many faults of each kind were injected. */
export interface FaultCounters {
  /** Requests that went through fault decision (API requests, not admin). */
  requests: number;
  delayed: number;
  dropped: number;
  rateLimited: number;
  /** 5xx faults by status. */
  serverErrors: Record<string, number>;
  truncated: number;
}

/** What to do to one request. `truncate` applies only if it would be answered 200. */
export interface FaultPlan {
  delayMs: number;
  action:
    | { kind: "none" }
    | { kind: "drop" }
    | { kind: "rateLimit"; retryAfterSeconds: number }
    | {
        kind: "serverError";
        status: number;
      };
  truncate: boolean;
}

/** Options of a FaultInjector. */
export interface FaultInjectorOptions {
  seed?: number;
  settings?: Partial<FaultSettings>;
  /** Store whose `stampLagMs` the `stampLagMs` setting drives. */
  store?: FlightStore;
}

const emptyCounters = (): FaultCounters => ({
  requests: 0,
  delayed: 0,
  dropped: 0,
  rateLimited: 0,
  serverErrors: {},
  truncated: 0,
});

/** Decides per request which fault to inject, and counts what was injected. */
export class FaultInjector {
  private rng: RandomGenerator;
  private current: FaultSettings;
  private counts = emptyCounters();
  private readonly store: FlightStore | undefined;

  constructor(options: FaultInjectorOptions = {}) {
    this.rng = xoroshiro128plus(options.seed ?? 0);
    this.store = options.store;
    this.current = { ...NO_FAULTS, serverErrorStatuses: [...NO_FAULTS.serverErrorStatuses] };
    if (this.store) this.current.stampLagMs = this.store.stampLagMs;
    if (options.settings) this.update(options.settings);
  }

  /** The settings in force (a copy). */
  get settings(): FaultSettings {
    const stampLagMs = this.store ? this.store.stampLagMs : this.current.stampLagMs;
    return {
      ...this.current,
      serverErrorStatuses: [...this.current.serverErrorStatuses],
      stampLagMs,
    };
  }

  /** Changes the given settings, keeping the others; validates first. Returns the result. */
  update(patch: Partial<FaultSettings>): FaultSettings {
    const valid = parseFaultSettings(patch);
    this.current = { ...this.current, ...valid };
    if (valid.serverErrorStatuses)
      this.current.serverErrorStatuses = [...valid.serverErrorStatuses];
    if (valid.stampLagMs !== undefined && this.store) this.store.stampLagMs = valid.stampLagMs;
    return this.settings;
  }

  /** Replaces all settings: fields not given return to "no fault". */
  replace(settings: Partial<FaultSettings>): FaultSettings {
    const valid = parseFaultSettings(settings);
    this.current = { ...NO_FAULTS, serverErrorStatuses: [...NO_FAULTS.serverErrorStatuses] };
    if (this.store) this.store.stampLagMs = 0;
    return this.update(valid);
  }

  /** Restarts the PRNG from a seed, to reproduce a run from a known point. */
  reseed(seed: number): void {
    this.rng = xoroshiro128plus(seed);
  }

  /** A copy of the counters. */
  get counters(): FaultCounters {
    return { ...this.counts, serverErrors: { ...this.counts.serverErrors } };
  }

  /** Sets every counter back to zero. */
  resetCounters(): void {
    this.counts = emptyCounters();
  }

  /** Decides the faults of one request and counts them (truncation counts when applied). */
  plan(): FaultPlan {
    // Always six draws, in a fixed order: see the file comment.
    const uDrop = this.draw();
    const uLimit = this.draw();
    const uError = this.draw();
    const uStatus = this.draw();
    const uTruncate = this.draw();
    const uJitter = this.draw();
    const s = this.current;
    this.counts.requests++;
    const delayMs = s.latencyMs + Math.floor(uJitter * s.jitterMs);
    if (delayMs > 0) this.counts.delayed++;
    let action: FaultPlan["action"] = { kind: "none" };
    if (uDrop < s.dropRate) {
      action = { kind: "drop" };
      this.counts.dropped++;
    } else if (uLimit < s.rateLimitRate) {
      action = { kind: "rateLimit", retryAfterSeconds: s.retryAfterSeconds };
      this.counts.rateLimited++;
    } else if (uError < s.serverErrorRate) {
      const statuses = s.serverErrorStatuses;
      const status = statuses[Math.floor(uStatus * statuses.length)] ?? 500;
      action = { kind: "serverError", status };
      this.counts.serverErrors[status] = (this.counts.serverErrors[status] ?? 0) + 1;
    }
    return { delayMs, action, truncate: uTruncate < s.truncateRate };
  }

  /** Records that a planned truncation was applied to a response. */
  countTruncated(): void {
    this.counts.truncated++;
  }

  private draw(): number {
    return uniformFloat64(this.rng);
  }
}
