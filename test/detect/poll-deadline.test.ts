import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PollDeadline } from "../../src/detect/poll-deadline.js";
import { ErrorCode, PollTimeoutError } from "../../src/errors.js";

/** A promise that never settles: work that ignores its signal. */
const never = (): Promise<never> => new Promise<never>(() => undefined);

/** Settles `promise` into an inspectable state without awaiting it. */
function track<T>(promise: Promise<T>): {
  state: "pending" | "resolved" | "rejected";
  value?: unknown;
} {
  const seen: { state: "pending" | "resolved" | "rejected"; value?: unknown } = {
    state: "pending",
  };
  promise.then(
    (value) => Object.assign(seen, { state: "resolved", value }),
    (value: unknown) => Object.assign(seen, { state: "rejected", value }),
  );
  return seen;
}

describe("PollDeadline (fake timers)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gives up on work that never ends at the deadline, not before, and aborts the signal", async () => {
    const deadline = new PollDeadline(60_000);
    const raced = track(deadline.race(never()));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(raced.state).toBe("pending");
    expect(deadline.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(raced.state).toBe("rejected");
    expect(raced.value).toBeInstanceOf(PollTimeoutError);
    expect((raced.value as PollTimeoutError).code).toBe(ErrorCode.POLL_TIMEOUT);
    expect((raced.value as PollTimeoutError).message).toContain("1m (POLL_TIMEOUT)");
    expect(deadline.signal.reason).toBe(raced.value);
    expect(deadline.timedOut).toBe(raced.value);
    deadline.dispose();
  });

  it("stands down once the commit begins: a commit under way is waited for", async () => {
    const deadline = new PollDeadline(1_000);
    let finishCommit: (value: string) => void = () => undefined;
    const work = (async () => {
      deadline.beginCommit();
      return new Promise<string>((resolve) => {
        finishCommit = resolve;
      });
    })();
    const raced = track(deadline.race(work));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(raced.state).toBe("pending");
    expect(deadline.signal.aborted).toBe(false);
    finishCommit("committed");
    await vi.advanceTimersByTimeAsync(0);
    expect(raced).toEqual({ state: "resolved", value: "committed" });
    expect(deadline.timedOut).toBeUndefined();
    deadline.dispose();
  });

  it("refuses to begin a commit after the deadline", async () => {
    const deadline = new PollDeadline(1_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(() => deadline.beginCommit()).toThrow(PollTimeoutError);
    deadline.dispose();
  });

  it("an outer abort (a shutdown) ends the poll with its own reason", async () => {
    const outer = new AbortController();
    const deadline = new PollDeadline(60_000, outer.signal);
    const raced = track(deadline.race(never()));
    const stop = new Error("stopping");
    outer.abort(stop);
    await vi.advanceTimersByTimeAsync(0);
    expect(raced).toEqual({ state: "rejected", value: stop });
    expect(deadline.timedOut).toBeUndefined();
    deadline.dispose();
  });

  it("leaves no timer behind once disposed", () => {
    const deadline = new PollDeadline(60_000);
    expect(vi.getTimerCount()).toBe(1);
    deadline.dispose();
    expect(vi.getTimerCount()).toBe(0);
  });
});
