/**
 * Calls made in one turn of the event loop, run as one: each `call` queues its input
 * and the whole queue goes to `run` once the turn's I/O callbacks are done
 * (setImmediate), so the workers finishing sends together make one Redis command of
 * their records, not one each — one socket write and one reply instead of dozens.
 * Each caller gets its own output, or the batch's error — or its own error, when `run`
 * answers it with a CallFailed (a batch that went to several servers, one of which
 * failed: the others' callers must hear what their server did).
 */

/** An output of `run` that fails its one caller with `error`. */
export class CallFailed {
  constructor(readonly error: unknown) {}
}

export class CallBatch<I, O> {
  readonly #run: (inputs: readonly I[]) => Promise<readonly (O | CallFailed)[]>;
  #queue: Array<{ input: I; resolve: (output: O) => void; reject: (err: unknown) => void }> = [];

  /** `run` answers the inputs in their order, one output (or CallFailed) each. */
  constructor(run: (inputs: readonly I[]) => Promise<readonly (O | CallFailed)[]>) {
    this.#run = run;
  }

  /** Queues one input; resolves to its output once its batch has run. */
  call(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#queue;
    this.#queue = [];
    try {
      const outputs = await this.#run(batch.map((b) => b.input));
      for (const [i, b] of batch.entries()) {
        const output = outputs[i];
        if (output instanceof CallFailed) b.reject(output.error);
        else b.resolve(output as O);
      }
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
