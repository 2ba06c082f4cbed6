// Loaded into a benchmark's child with NODE_OPTIONS=--import (Node refuses --cpu-prof
// there): the first SIGUSR2 starts the V8 CPU profiler, the next stops it and writes
// the profile to CPU_PROFILE_DIR as cpu-<pid>-<n>.cpuprofile (chrome://inspect, or
// bench/profile-summary.ts), so a profile covers only what the benchmark measures.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.CPU_PROFILE_DIR ?? ".";
const session = new Session();
session.connect();
let running = false;
let n = 0;

process.on("SIGUSR2", () => {
  if (!running) {
    running = true;
    session.post("Profiler.enable", () =>
      session.post("Profiler.setSamplingInterval", { interval: 500 }, () =>
        session.post("Profiler.start"),
      ),
    );
    return;
  }
  running = false;
  session.post("Profiler.stop", (err, result) => {
    if (err) return;
    const file = join(dir, `cpu-${process.pid}-${++n}.cpuprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
    process.stderr.write(`cpu profile written: ${file}\n`);
  });
});
