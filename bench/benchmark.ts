/**
 * What a benchmark is, for bench/run.ts and every benchmark file: a type of its own,
 * so that the benchmarks import it rather than the runner that imports them.
 */

/** A headline figure of a benchmark, for the summary table of BENCHMARKS.md. */
export interface Headline {
  /** What is measured, e.g. "detection latency p99 at POLL_INTERVAL=1s". */
  figure: string;
  /** The measurement, with its unit, e.g. "812 ms". */
  value: string;
  /** The target, when the issue names one, e.g. "≤ 1,250 ms". */
  aim?: string;
  /** Whether `value` meets `aim`. */
  met?: boolean;
}

/** One benchmark: a name and a function that prints its own figures. */
export interface Benchmark {
  name: string;
  /** A heading for its section of BENCHMARKS.md (default: the name). */
  title?: string;
  /** Prints its figures (console.log, which is captured for BENCHMARKS.md); may return headlines. */
  run(): Promise<Headline[] | undefined> | Promise<void>;
}
