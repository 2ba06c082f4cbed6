/**
 * The live terminal view of `flightwatch demo`: draws `renderDemoScreen` on the
 * alternate screen of a TTY, at most once per refresh period, and only when the
 * frame changed. The terminal is given back as it was (main screen, cursor shown)
 * on `close()`, and also when the process exits, is interrupted or terminated, or
 * dies of an uncaught exception — before Node prints the error, so the error stays
 * readable on the main screen.
 *
 * On SIGINT/SIGTERM the view only gives the terminal back: ending the process is its
 * owner's business (the daemon's graceful stop, whose "stopping…/stopped" lines then
 * land on the main screen). The owner must handle those signals.
 */
import { writeSync } from "node:fs";
import { renderDemoScreen } from "./demo-screen.js";
import type { DemoState } from "./demo-state.js";
import { visibleWidth } from "./terminal-line.js";

/** Switch to the alternate screen, hide the cursor, clear. */
export const ENTER_SCREEN = "\x1b[?1049h\x1b[?25l\x1b[2J";
/** Show the cursor, back to the main screen. */
export const LEAVE_SCREEN = "\x1b[?25h\x1b[?1049l";

const HOME = "\x1b[H";
const CLEAR_SCREEN = "\x1b[2J";
const CLEAR_TO_EOL = "\x1b[K";
const CLEAR_BELOW = "\x1b[J";

/** Calls `callback` every `ms` until the returned function is called. */
export type Every = (callback: () => void, ms: number) => () => void;

/** The process events the view restores the terminal on; tests pass an emitter. */
export interface ViewProcess {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** Options of a `LiveView`. */
export interface LiveViewOptions {
  /** A TTY; `columns`/`rows` may be missing (80×24 then). */
  output: NodeJS.WriteStream;
  state: DemoState;
  /** The airport's IANA zone. */
  zone: string;
  /** Airport ms per real ms, for the header. */
  speed: number;
  /** Airport clock, epoch ms. */
  now: () => number;
  /** Shortest time between two redraws, ms (default 250). */
  refreshMs?: number;
  /** Colours (default: what the output says it supports, which honours NO_COLOR). */
  color?: boolean;
  /** Footer text (default `DEMO_FOOTER`). */
  footer?: string;
  /** The redraw timer (default `setInterval`, unref'd so it never keeps the process alive). */
  every?: Every;
  /** Where exit, signals and uncaught exceptions are heard (default `process`). */
  process?: ViewProcess;
}

const SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM"];

const unrefInterval: Every = (callback, ms) => {
  const timer = setInterval(callback, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/** Draws the demo state on a terminal until closed. */
export class LiveView {
  readonly #options: LiveViewOptions;
  readonly #output: NodeJS.WriteStream;
  readonly #process: ViewProcess;
  readonly #color: boolean;
  #stopTimer: (() => void) | undefined;
  #started = false;
  #closed = false;
  #lastFrame: string | undefined;
  #resized = false;
  readonly #onResize = (): void => {
    this.#resized = true;
  };
  readonly #onExit = (): void => this.#restoreSync();
  readonly #onError = (): void => this.#stop();
  // The terminal back at once; the owner, who also hears the signal, stops the process.
  // (Raising the signal again when no other listener was left looked safe, but the
  // owner's `once` listener is removed before the view's runs: the demo died of its
  // Ctrl-C, exit 130, without its graceful stop or the removal of its keys.)
  readonly #onSignal = (): void => this.close();

  constructor(options: LiveViewOptions) {
    this.#options = options;
    this.#output = options.output;
    this.#process = options.process ?? process;
    this.#color =
      options.color ??
      (typeof this.#output.hasColors === "function" ? this.#output.hasColors() : false);
  }

  /** Enters the alternate screen and starts drawing (a no-op when started or closed). */
  start(): void {
    if (this.#started || this.#closed) return;
    this.#started = true;
    for (const signal of SIGNALS) this.#process.on(signal, this.#onSignal);
    this.#process.on("exit", this.#onExit);
    this.#process.on("uncaughtExceptionMonitor", this.#onExit);
    this.#output.on("resize", this.#onResize);
    this.#output.on("error", this.#onError);
    this.#write(ENTER_SCREEN);
    this.#stopTimer = (this.#options.every ?? unrefInterval)(
      () => this.#draw(),
      this.#options.refreshMs ?? 250,
    );
    this.#draw();
  }

  /** Stops drawing and gives the terminal back; safe to call more than once. */
  close(): void {
    if (this.#closed) return;
    const wasStarted = this.#started;
    this.#stop();
    if (wasStarted) this.#write(LEAVE_SCREEN);
  }

  /** Draws the frame when it differs from the one on screen (or the screen was resized). */
  #draw(): void {
    if (this.#closed) return;
    const width = this.#output.columns || 80;
    const height = this.#output.rows || 24;
    const lines = renderDemoScreen(this.#options.state, {
      width,
      height,
      zone: this.#options.zone,
      now: this.#options.now(),
      speed: this.#options.speed,
      color: this.#color,
      ...(this.#options.footer !== undefined ? { footer: this.#options.footer } : {}),
    });
    // A line that fills its row leaves the cursor on its last column, where "clear to
    // end of line" would erase that character: clear only after shorter lines.
    const body = lines
      .map((line) => (visibleWidth(line) < width ? line + CLEAR_TO_EOL : line))
      .join("\r\n");
    const frame = `${this.#resized ? CLEAR_SCREEN : ""}${HOME}${body}${CLEAR_BELOW}`;
    if (!this.#resized && frame === this.#lastFrame) return;
    this.#resized = false;
    this.#lastFrame = frame;
    this.#write(frame);
  }

  /** Stops the timer and lets go of every listener; the view draws no more. */
  #stop(): void {
    this.#closed = true;
    this.#stopTimer?.();
    this.#stopTimer = undefined;
    for (const signal of SIGNALS) this.#process.off(signal, this.#onSignal);
    this.#process.off("exit", this.#onExit);
    this.#process.off("uncaughtExceptionMonitor", this.#onExit);
    this.#output.off("resize", this.#onResize);
    this.#output.off("error", this.#onError);
  }

  /**
   * Restores the terminal synchronously: on exit and before an uncaught exception is
   * printed, nothing asynchronous runs any more.
   */
  #restoreSync(): void {
    if (this.#closed) return;
    this.#stop();
    const fd = (this.#output as { fd?: unknown }).fd;
    if (typeof fd === "number") {
      try {
        writeSync(fd, LEAVE_SCREEN);
        return;
      } catch {
        // Fall back to the stream below.
      }
    }
    this.#write(LEAVE_SCREEN);
  }

  #write(text: string): void {
    if (this.#output.destroyed || this.#output.writableEnded) return;
    this.#output.write(text);
  }
}
