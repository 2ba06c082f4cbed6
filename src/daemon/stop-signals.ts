/**
 * The stop signals of a daemon process, SIGINT and SIGTERM: the first asks for a
 * graceful stop, a later one for an immediate exit. A repeat that comes within a
 * second of the first is the same request, not impatience: Ctrl-C in a terminal
 * reaches every process of the foreground group, and `npm start` passes its own copy
 * on to flightwatch (when the script shell execs the command, as bash does), so one
 * key press arrives twice within milliseconds. Once the stop is done the listener
 * stays: a late copy must not kill a process that is about to exit 0 (Node's default
 * for a signal nobody hears), and a process that lingers still ends on a signal.
 */

/** The part of `process` the listener needs; tests pass an emitter. */
export interface SignalSource {
  on(event: "SIGINT" | "SIGTERM", listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: "SIGINT" | "SIGTERM", listener: (signal: NodeJS.Signals) => void): unknown;
}

/** Options of `listenForStop`. */
export interface StopSignalOptions {
  /** Called once for a signal that comes at least `sameWithinMs` after the first. */
  onImpatient: (signal: NodeJS.Signals) => void;
  /** A repeat within this long of the first signal is the same request (default 1 s). */
  sameWithinMs?: number;
  /** Monotonic clock, ms (default `performance.now`). */
  now?: () => number;
  /** Ends the process after `done` (default `process.exit`). */
  exit?: (code: number) => void;
  /** Where signals are heard (default `process`). */
  source?: SignalSource;
}

/** The stop request of a process, as the signals made it. */
export interface StopSignals {
  /** Resolves with the first signal's name. */
  readonly first: Promise<NodeJS.Signals>;
  /** The first signal, once one came. */
  readonly received: NodeJS.Signals | undefined;
  /** The stop is over: from now on a signal ends the process at once with `code`. */
  done(code: number): void;
  /** Stops listening altogether (for callers that stay alive, such as tests). */
  close(): void;
}

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Listens for SIGINT and SIGTERM from now on, for the whole life of the process. */
export function listenForStop(options: StopSignalOptions): StopSignals {
  const source = options.source ?? process;
  const now = options.now ?? (() => performance.now());
  const sameWithinMs = options.sameWithinMs ?? 1000;
  let received: NodeJS.Signals | undefined;
  let firstAt = 0;
  let impatient = false;
  let doneCode: number | undefined;
  let resolveFirst: (signal: NodeJS.Signals) => void = () => undefined;
  const first = new Promise<NodeJS.Signals>((resolve) => {
    resolveFirst = resolve;
  });
  const listener = (signal: NodeJS.Signals): void => {
    if (doneCode !== undefined) {
      (options.exit ?? process.exit)(doneCode);
      return;
    }
    if (received === undefined) {
      received = signal;
      firstAt = now();
      resolveFirst(signal);
      return;
    }
    if (impatient || now() - firstAt < sameWithinMs) return;
    impatient = true;
    options.onImpatient(signal);
  };
  for (const signal of SIGNALS) source.on(signal, listener);
  return {
    first,
    get received() {
      return received;
    },
    done(code) {
      doneCode = code;
    },
    close() {
      for (const signal of SIGNALS) source.off(signal, listener);
    },
  };
}
