// Loaded into a benchmark's daemon with NODE_OPTIONS=--import (bench/daemon-rig.ts): on
// SIGUSR2 it collects all garbage and prints the live heap as one JSON line on stdout,
// beside the daemon's log lines. The daemon's own code is untouched.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

process.on("SIGUSR2", () => {
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ heapProbe: { heapUsed, rss } })}\n`);
});
