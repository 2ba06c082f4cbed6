import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { PassThrough } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { DemoState } from "../../src/demo/demo-state.js";
import {
  ENTER_SCREEN,
  type Every,
  LEAVE_SCREEN,
  LiveView,
  type LiveViewOptions,
} from "../../src/demo/live-view.js";
import { boardingAndGate, DEMO_START, pollReport, ZONE } from "./demo-fixtures.js";

/** A PassThrough that says it is a TTY, recording every write as it happens. */
function fakeTty(columns?: number, rows?: number) {
  const stream = new PassThrough() as PassThrough & {
    isTTY: boolean;
    columns?: number;
    rows?: number;
  };
  stream.isTTY = true;
  if (columns !== undefined) stream.columns = columns;
  if (rows !== undefined) stream.rows = rows;
  stream.resume();
  const writes: string[] = [];
  const write = stream.write.bind(stream) as (chunk: string) => boolean;
  stream.write = ((chunk: string) => {
    writes.push(String(chunk));
    return write(chunk);
  }) as typeof stream.write;
  return { stream, output: stream as unknown as NodeJS.WriteStream, writes };
}

/** A redraw timer ticked by hand. */
function manualTimer() {
  const timer = {
    callback: undefined as (() => void) | undefined,
    ms: 0,
    stopped: false,
    every: ((callback, ms) => {
      timer.callback = callback;
      timer.ms = ms;
      return () => {
        timer.stopped = true;
      };
    }) as Every,
    tick: () => timer.callback?.(),
  };
  return timer;
}

/** Stands in for `process`: events emitted by hand, signals raised recorded. */
class FakeProcess extends EventEmitter {
  readonly pid = 4242;
  readonly raised: [number, string][] = [];
  kill(pid: number, signal: NodeJS.Signals): boolean {
    this.raised.push([pid, signal]);
    return true;
  }
}

function setup(parts: Partial<LiveViewOptions> & { columns?: number; rows?: number } = {}) {
  const { columns = 100, rows = 30, ...options } = parts;
  const tty = fakeTty(columns, rows);
  const timer = manualTimer();
  const proc = new FakeProcess();
  const state = new DemoState({ startedAt: DEMO_START, speed: 60 });
  const clock = { now: DEMO_START };
  const view = new LiveView({
    output: tty.output,
    state,
    zone: ZONE,
    speed: 60,
    now: () => clock.now,
    every: timer.every,
    process: proc,
    ...options,
  });
  return { ...tty, timer, proc, state, clock, view };
}

/** The visible lines of a frame. */
function linesOf(frame: string): string[] {
  return stripVTControlCharacters(frame).split("\r\n");
}

describe("LiveView", () => {
  it("enters the alternate screen with the cursor hidden, draws, and gives the terminal back on close", () => {
    const { view, writes, timer, proc, stream } = setup();
    view.start();
    expect(writes[0]).toBe(ENTER_SCREEN);
    expect(writes).toHaveLength(2);
    expect(linesOf(writes[1] ?? "")[0]).toContain("flightwatch demo");
    expect(timer.ms).toBe(250);

    view.close();
    expect(writes.at(-1)).toBe(LEAVE_SCREEN);
    expect(timer.stopped).toBe(true);
    for (const event of ["exit", "SIGINT", "SIGTERM", "uncaughtExceptionMonitor"]) {
      expect(proc.listenerCount(event)).toBe(0);
    }
    expect(stream.listenerCount("resize")).toBe(0);
    // Closed: no more frames, and a second close writes nothing.
    timer.tick();
    view.close();
    expect(writes.filter((w) => w === LEAVE_SCREEN)).toHaveLength(1);
    expect(writes).toHaveLength(3);
  });

  it("redraws at most once per refresh tick, and only when the frame changed", () => {
    const { view, writes, timer, state, clock } = setup({ refreshMs: 100 });
    view.start();
    expect(timer.ms).toBe(100);
    const before = writes.length;
    for (let i = 0; i < 50; i++) state.poll(pollReport(clock.now, boardingAndGate()), clock.now);
    expect(writes).toHaveLength(before);

    timer.tick();
    expect(writes).toHaveLength(before + 1);
    expect(writes.at(-1)).toContain("Detected changes · 100");
    timer.tick();
    expect(writes).toHaveLength(before + 1);

    clock.now += 60_000; // the airport clock moves on: a new header
    timer.tick();
    expect(writes).toHaveLength(before + 2);
    expect(writes.at(-1)).toContain("10:01");
  });

  it("re-renders for the new size after a resize, from a cleared screen", () => {
    const { view, writes, timer, stream } = setup({ columns: 120, rows: 30 });
    view.start();
    const before = writes.length;
    stream.columns = 60;
    stream.rows = 10;
    stream.emit("resize");
    expect(writes).toHaveLength(before);
    timer.tick();
    const frame = writes.at(-1) ?? "";
    expect(frame.startsWith("\x1b[2J\x1b[H")).toBe(true);
    const lines = linesOf(frame);
    expect(lines).toHaveLength(10);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);

    // A resize redraws even when the frame is the same as before.
    stream.emit("resize");
    timer.tick();
    expect(writes).toHaveLength(before + 2);
  });

  it("draws 80×24 when the stream does not know its size", () => {
    const { view, writes, stream } = setup();
    stream.columns = undefined;
    stream.rows = undefined;
    view.start();
    const lines = linesOf(writes[1] ?? "");
    expect(lines).toHaveLength(24);
    expect(lines.every((l) => [...l].length <= 80)).toBe(true);
  });

  it("clears to the end of a line only after lines shorter than the screen", () => {
    // After a full-width line the cursor sits on its last column: a clear there would erase it.
    const { view, writes } = setup({ columns: 70 });
    view.start();
    const frame = writes[1] ?? "";
    const title = frame.split("\r\n").find((l) => l.startsWith("── Detected changes"));
    expect(title).toBeDefined();
    expect([...(title ?? "")].length).toBe(70);
    const header = frame.split("\r\n")[0] ?? "";
    expect(header.endsWith("\x1b[K")).toBe(true);
  });

  it("uses colour only when asked or when the output has colours", () => {
    const styled = (text: string): boolean =>
      text.split("\x1b[").some((sequence) => /^[0-9;]*m/.test(sequence));
    const plain = setup();
    plain.view.start();
    expect(styled(plain.writes.join(""))).toBe(false);
    const colored = setup({ color: true });
    colored.view.start();
    expect(styled(colored.writes.join(""))).toBe(true);
  });

  it("gives the terminal back when the process exits or an exception goes uncaught", () => {
    for (const event of ["exit", "uncaughtExceptionMonitor"]) {
      const { view, writes, proc, timer } = setup();
      view.start();
      proc.emit(event, event === "exit" ? 1 : new Error("boom"));
      expect(writes.at(-1)).toBe(LEAVE_SCREEN);
      expect(timer.stopped).toBe(true);
      view.close();
      expect(writes.filter((w) => w === LEAVE_SCREEN)).toHaveLength(1);
    }
  });

  it("on a signal, gives the terminal back and never raises the signal again: the owner stops the process", () => {
    // Even with no other listener left (the owner's `once` listener runs, and is
    // removed, before the view's): raising it again would kill the graceful stop.
    const { view, writes, proc, timer } = setup();
    view.start();
    proc.emit("SIGINT", "SIGINT");
    expect(writes.at(-1)).toBe(LEAVE_SCREEN);
    expect(timer.stopped).toBe(true);
    expect(proc.raised).toEqual([]);
    expect(proc.listenerCount("SIGINT")).toBe(0);
  });

  it("on a signal the daemon handles, gives the terminal back and leaves the ending to the daemon", () => {
    const { view, writes, proc } = setup();
    const heard: string[] = [];
    proc.on("SIGTERM", (signal: string) => heard.push(signal));
    view.start();
    proc.emit("SIGTERM", "SIGTERM");
    expect(writes.at(-1)).toBe(LEAVE_SCREEN);
    expect(heard).toEqual(["SIGTERM"]);
    expect(proc.raised).toEqual([]);
  });
});

describe.concurrent("LiveView in a process of its own", () => {
  const CHILD = new URL("./live-view-child.ts", import.meta.url).pathname;

  /** The child's view is on its stderr; `started` comes on its stdout. */
  function runChild(mode: "throw" | "wait") {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, mode], {
      cwd: new URL("../..", import.meta.url),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let screen = "";
    child.stderr.on("data", (chunk) => {
      screen += String(chunk);
    });
    const started = new Promise<void>((resolve) => {
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += String(chunk);
        if (out.includes("started\n")) resolve();
      });
    });
    const exited = new Promise<number | string>((resolve) =>
      child.on("close", (code, signal) => resolve(code ?? signal ?? "unknown")),
    );
    return { child, started, exited, screen: () => screen };
  }

  it("gives the terminal back when the process dies of an uncaught exception, before the error is printed", async () => {
    const run = runChild("throw");
    expect(await run.exited).toBe(1);
    const screen = run.screen();
    expect(screen.startsWith(ENTER_SCREEN)).toBe(true);
    expect(screen).toContain("flightwatch demo");
    const restored = screen.indexOf(LEAVE_SCREEN);
    expect(restored).toBeGreaterThan(0);
    // On the main screen, the error stays readable.
    expect(screen.indexOf("boom in the demo")).toBeGreaterThan(restored);
    expect(screen.split(LEAVE_SCREEN)).toHaveLength(2);
  });

  it("gives the terminal back on Ctrl-C, and its owner stops gracefully: 'stopped' on the main screen, exit 0", async () => {
    const run = runChild("wait");
    await run.started;
    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    const screen = run.screen();
    expect(screen.startsWith(ENTER_SCREEN)).toBe(true);
    // The terminal is given back once, and the owner's stop speaks after it.
    expect(screen.split(LEAVE_SCREEN)).toHaveLength(2);
    expect(screen.endsWith(`${LEAVE_SCREEN}stopped\n`)).toBe(true);
  });
});
