/**
 * Crash points, for the tests that prove "a crash at any moment loses nothing and
 * sends nothing twice". With `FLIGHTWATCH_CRASH_AT=<point>[:<n>]` the process kills
 * itself with SIGKILL the n-th time (default: the first) it reaches `<point>`, so a
 * test can crash it exactly between two steps that random kills would rarely hit.
 * Unset (always, outside those tests) a crash point costs one comparison.
 */
const [armedPoint, armedCount] = (process.env.FLIGHTWATCH_CRASH_AT ?? "").split(":");
let remaining = Number(armedCount ?? "1") || 1;

/** Points where a crash is most likely to lose or duplicate work. */
export type CrashPointName =
  | "detect.before-commit"
  | "detect.after-commit"
  | "dispatch.before-commit"
  | "dispatch.after-commit"
  | "dispatch.before-flush-commit"
  | "watch.after-print"
  | "notify.before-ack"
  | "deliver.before-send"
  | "deliver.after-send";

/** Kills the process here if FLIGHTWATCH_CRASH_AT names this point (see module comment). */
export function crashPoint(name: CrashPointName): void {
  if (armedPoint !== name) return;
  remaining--;
  if (remaining <= 0) process.kill(process.pid, "SIGKILL");
}
