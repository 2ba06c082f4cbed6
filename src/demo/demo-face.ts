/**
 * How `flightwatch demo` speaks: the live view takes the terminal while the daemon
 * runs (the log is silent under it and speaks again at the stop), fed by an observer
 * of the pipeline. The console channel's output would scroll under the view: it is
 * dropped there, the view shows each delivery.
 */
import type { Face } from "../daemon/run-daemon.js";
import { DemoState } from "./demo-state.js";
import { LiveView } from "./live-view.js";

/** The demo's face at `speed` (simulated ms per real ms). */
export function demoFace(speed: number): Face {
  const state = new DemoState({ speed });
  return {
    log: { level: "silent" },
    console: { write: () => undefined, json: false },
    quietAlerts: true,
    observer: ({ now }) => ({
      polled: (report) => state.poll(report, now()),
      decided: (alerts) => {
        for (const alert of alerts) state.alert(alert, now());
      },
      delivered: (record) => state.delivery(record, now()),
    }),
    show: ({ config, log, now }) => {
      const view = new LiveView({ output: process.stdout, state, zone: config.zone, speed, now });
      view.start();
      return () => {
        view.close();
        log.level = config.log.level;
      };
    },
  };
}
