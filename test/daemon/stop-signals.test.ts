import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { listenForStop, type SignalSource } from "../../src/daemon/stop-signals.js";

function setup() {
  const source = new EventEmitter();
  const clock = { now: 0 };
  const impatient: string[] = [];
  const exits: number[] = [];
  const stop = listenForStop({
    source: source as unknown as SignalSource,
    now: () => clock.now,
    onImpatient: (signal) => impatient.push(signal),
    exit: (code) => exits.push(code),
  });
  const raise = (signal: "SIGINT" | "SIGTERM") => source.emit(signal, signal);
  return { source, clock, impatient, exits, stop, raise };
}

describe("listenForStop", () => {
  it("the first signal asks for a graceful stop", async () => {
    const { stop, raise } = setup();
    expect(stop.received).toBeUndefined();
    raise("SIGTERM");
    expect(await stop.first).toBe("SIGTERM");
    expect(stop.received).toBe("SIGTERM");
  });

  it("a repeat within a second is the same Ctrl-C (a terminal's and npm's copy), not impatience", () => {
    const { clock, impatient, raise } = setup();
    raise("SIGINT");
    clock.now = 5;
    raise("SIGINT");
    clock.now = 999;
    raise("SIGINT");
    expect(impatient).toEqual([]);
  });

  it("a signal a second or more after the first exits at once, called once", () => {
    const { clock, impatient, raise } = setup();
    raise("SIGINT");
    clock.now = 1000;
    raise("SIGTERM");
    clock.now = 5000;
    raise("SIGINT");
    expect(impatient).toEqual(["SIGTERM"]);
  });

  it("after the stop, a late copy or a signal to a lingering process exits with the stop's code", () => {
    // Unheard, the late copy of a Ctrl-C would kill a process about to exit 0 (130).
    const { clock, impatient, exits, stop, raise } = setup();
    raise("SIGINT");
    stop.done(0);
    clock.now = 3;
    raise("SIGINT");
    expect(exits).toEqual([0]);
    expect(impatient).toEqual([]);
  });

  it("listens until closed, and not after", () => {
    const { source, stop } = setup();
    expect(source.listenerCount("SIGINT")).toBe(1);
    expect(source.listenerCount("SIGTERM")).toBe(1);
    stop.close();
    expect(source.listenerCount("SIGINT")).toBe(0);
    expect(source.listenerCount("SIGTERM")).toBe(0);
  });
});
