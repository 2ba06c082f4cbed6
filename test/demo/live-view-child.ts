/**
 * A process that shows the live view on its stderr (a pipe: no size, so 80×24) and
 * then dies: `throw` of an uncaught exception, `wait` of the signal the test sends.
 * The view is on stderr so that the test sees in one stream whether Node's report of
 * the exception comes after the terminal was given back. Says `started` on stdout.
 */
import { DemoState } from "../../src/demo/demo-state.js";
import { LiveView } from "../../src/demo/live-view.js";

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
  setInterval(() => undefined, 60_000);
}
