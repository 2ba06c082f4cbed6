/**
 * stdout for commands that print data: writes wait while the pipe is full, and a
 * reader that went away (`flightwatch api … | head -3`: EPIPE) ends the output
 * quietly — the sink closes, its signal aborts the work that feeds it (no further
 * requests), and the command ends with exit 0 and nothing on stderr, as `head`
 * expects of a producer.
 */

/**
 * For a command that only prints (nothing to abort, nothing to clean up): a reader that
 * went away (`flightwatch rules test … | head -3`) ends the process at once, exit 0 and
 * silent, instead of an EPIPE stack trace. Any other write failure is thrown as before.
 */
export function endQuietlyWhenReaderGoes(out: NodeJS.WritableStream = process.stdout): void {
  out.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    process.exit(0);
  });
}

/** Thrown by `write` once the reader has gone away. */
export class OutputClosedError extends Error {
  constructor() {
    super("stdout is closed (the reader went away)");
    this.name = "OutputClosedError";
  }
}

/** A data output that notices when its reader goes away. */
export class StdoutSink {
  readonly #out: NodeJS.WritableStream;
  readonly #abort = new AbortController();
  readonly #onError = (err: NodeJS.ErrnoException): void => {
    // Any failure to write is the end of the output; EPIPE is the ordinary one.
    if (err.code !== "EPIPE") this.#failure = err;
    this.#abort.abort(new OutputClosedError());
  };
  #failure: Error | undefined;

  constructor(out: NodeJS.WritableStream = process.stdout) {
    this.#out = out;
    out.on("error", this.#onError);
  }

  /** Aborted when the reader goes away: pass it to the work that produces the output. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** Whether the reader went away (then whatever failed afterwards is no failure). */
  get closed(): boolean {
    return this.#abort.signal.aborted && this.#failure === undefined;
  }

  /** Writes, waiting while the pipe is full; rejects with OutputClosedError once closed. */
  write(text: string): Promise<void> {
    if (this.#abort.signal.aborted) return Promise.reject(new OutputClosedError());
    if (text === "" || this.#out.write(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        this.#out.off("drain", settle);
        this.#abort.signal.removeEventListener("abort", settle);
        if (this.#abort.signal.aborted) reject(new OutputClosedError());
        else resolve();
      };
      this.#out.once("drain", settle);
      this.#abort.signal.addEventListener("abort", settle);
    });
  }

  /**
   * Stops listening to the stream (the command is done with it). A failed write
   * reports its EPIPE on the next tick: the listener stays until after that, or the
   * error would reach no listener and end the process with a stack trace.
   */
  release(): void {
    setImmediate(() => this.#out.off("error", this.#onError));
  }
}
