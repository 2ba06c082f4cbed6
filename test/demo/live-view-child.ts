/**
 * A process that shows the live view on its stderr (a pipe: no size, so 80×24) and
 * then ends: `throw` dies of an uncaught exception; `wait` stops gracefully on the
 * SIGINT the test sends, as the daemon does — its own `once` listener, added before
 * the view starts, closes the view, says `stopped` and exits 0. The view is on stderr
 * so that the test sees in one stream whether Node's report of the exception, or the
 * `stopped` line, comes after the terminal was given back. Says `started` on stdout.
 */
import { DemoState } from "../../src/demo/demo-state.js";
import { LiveView } from "../../src/demo/live-view.js";

let keepAlive: NodeJS.Timeout | undefined;
if (process.argv[2] === "wait") {
  // The owner's graceful stop, registered first, as runDaemon registers its listener.
  process.once("SIGINT", () => {
    view.close();
    // After a graceful stop's work (here none), a line on the main screen, then exit 0.
    setTimeout(() => {
      process.stderr.write("stopped\n");
      clearInterval(keepAlive);
    }, 50);
  });
}

const view = new LiveView({
  output: process.stderr,
  state: new DemoState(),
  zone: "Europe/Amsterdam",
  speed: 60,
  now: () => Date.parse("2026-11-21T09:00:00Z"),
  color: false,
});
view.start();
process.stdout.write("started\n");
if (process.argv[2] === "throw") {
  setTimeout(() => {
    throw new Error("boom in the demo");
  }, 10);
} else {
  // The view's timer is unref'd: this keeps the process waiting for the signal.
  keepAlive = setInterval(() => undefined, 60_000);
}
