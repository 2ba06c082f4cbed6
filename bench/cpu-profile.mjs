// Loaded into a benchmark's child with NODE_OPTIONS=--import (Node refuses --cpu-prof
// there): the first SIGUSR2 starts the V8 CPU profiler, the next stops it and writes
// the profile to CPU_PROFILE_DIR as cpu-<pid>-<n>.cpuprofile (chrome://inspect, or
// bench/profile-summary.ts), so a profile covers only what the benchmark measures.
// With HEAP_PROFILE=1 it samples allocations instead (heap-<pid>-<n>.heapprofile: where
// the garbage the collector spends its time on comes from).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.CPU_PROFILE_DIR ?? ".";
const session = new Session();
session.connect();
let running = false;
let n = 0;

const heap = process.env.HEAP_PROFILE === "1";

process.on("SIGUSR2", () => {
  if (heap) {
    running = !running;
    if (running) {
      session.post("HeapProfiler.enable", () =>
        session.post("HeapProfiler.startSampling", {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        }),
      );
      return;
    }
    session.post("HeapProfiler.stopSampling", (err, result) => {
      if (err) return;
      const file = join(dir, `heap-${process.pid}-${++n}.heapprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
      process.stderr.write(`heap profile written: ${file}\n`);
    });
    return;
  }
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
