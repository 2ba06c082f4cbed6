/**
 * The wall clock of a running daemon is stepped back an hour (an NTP step, a VM
 * resumed with a stale clock), shared by the chaos test and its fast subset in `npm
 * test`. The daemon runs under libfaketime, which moves only its wall clock
 * (`Date.now()`; its monotonic clock, the simulator's, Redis's and the receivers' are
 * untouched), while gates keep moving. Rules send each gate change to Slack and to a
 * duty mailbox, and a grouped (`group_wait`) mail to a desk; the duty mailbox defers
 * (451) around the step, so notifications are waiting to retry when it comes.
 *
 * Judged by the chaos ledger (kill-support.ts): every value kept while the daemon
 * watched arrives, in order, none twice — before, across and after the step. Polling
 * does not stop for the hour, retries and groups do not wait for it, and the daemon
 * says what happened, stays ready, reports a true poll lag, and logs no error.
 * (Webhooks are left out: a receiver rightly refuses signatures dated an hour off.)
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { departure } from "../acceptance/cast.js";
import { readDeliveries } from "../acceptance/deliveries.js";
import { timeline, type World } from "../acceptance/timeline.js";
import { logLines, opsUrlOf, readyz, scrape } from "../cli/run-harness.js";
import { sleep } from "../support/crash-run.js";
import { sampleValue } from "../support/prometheus-text.js";
import type { RcptScript } from "../support/smtp-receiver.js";
import {
  chaosSeed,
  committedPolls,
  finalVerdict,
  GateLedger,
  type GateRule,
  judgeGateChains,
  moveGates,
  seededRandom,
  untilJudged,
  upSpans,
  type Verdict,
} from "./kill-support.js";

/** Where Debian (and others) put libfaketime. */
const FAKETIME_LIBRARIES = [
  "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
  "/usr/lib/faketime/libfaketime.so.1",
  "/usr/local/lib/faketime/libfaketime.so.1",
];

/** libfaketime's path; throws, saying how to get it, when it is not installed. */
export function libfaketime(): string {
  const found = FAKETIME_LIBRARIES.find((path) => existsSync(path));
  if (!found) {
    throw new Error(
      "libfaketime is not installed: the clock-jump tests step a daemon's wall clock with it. " +
        "Install it (Debian/Ubuntu: `apt-get install faketime`, as .ci/run does).",
    );
  }
  return found;
}

/** How long the scenario runs around the step. */
export interface ClockJumpOptions {
  name: string;
  /** Gates move this long before the step and this long after it, ms. */
  beforeMs: number;
  afterMs: number;
}

const FLIGHTS = Array.from({ length: 8 }, (_, i) => `KL${2501 + i}`);
const PIERS = ["B", "C", "D", "E", "F", "G", "H", "M"];
const DESK = FLIGHTS.slice(0, 4);

const RULES = `
rules:
  - id: gates
    changes: [gate]
    channels: [{ type: slack, url: "\${RULE_SLACK_URL}/ops" }]
  - id: duty
    changes: [gate]
    channels: [{ type: email, to: [duty@example.com], subject: "{flight}: {changes}", retry: { delays: [2s, 2s, 2s, 2s, 2s, 2s], for: 10m } }]
  - id: desk
    flights: { flight: [${DESK.join(", ")}] }
    changes: [gate]
    group_wait: 2s
    channels: [{ type: email, to: [desk@example.com], subject: "{flight}: {changes}" }]
`;

const JUDGED: GateRule[] = [
  { ruleId: "gates", channel: "slack", flights: FLIGHTS },
  { ruleId: "duty", channel: "email", flights: FLIGHTS },
  { ruleId: "desk", channel: "email", flights: DESK, grouped: true },
];

/** The duty mailbox defers this long before the step and after it (under the flights' 6 s between moves). */
const DEFERRED_BEFORE_MS = 2_000;
const DEFERRED_AFTER_MS = 2_000;

const DEFERRED: RcptScript = (address) =>
  address.toLowerCase() === "duty@example.com"
    ? { code: 451, message: "4.7.1 try again later" }
    : undefined;

/** Plays the scenario; throws (with the timeline's report) when anything is off. */
export async function clockJumpScenario(options: ClockJumpOptions): Promise<Verdict> {
  const library = libfaketime();
  const seed = chaosSeed();
  const random = seededRandom(seed);
  const dir = mkdtempSync(join(tmpdir(), "fw-faketime-"));
  const offsetFile = join(dir, "offset");
  writeFileSync(offsetFile, "+0\n");
  const cast = FLIGHTS.map((name, i) =>
    departure(name, { gate: `${PIERS[i % PIERS.length]}${i + 1}`, in: `${3 + i / 4}h` }),
  );
  const ledger = new GateLedger(cast.map((f) => [f.name, f.gate] as [string, string]));
  let world: World | undefined;
  let converged: Verdict | undefined;
  const sightings = (w: World) => ({ up: upSpans(w), polls: committedPolls(w), kills: [] });
  const judge = (w: World) =>
    judgeGateChains(readDeliveries(w).deliveries, ledger, JUDGED, sightings(w));
  const tl = timeline({
    name: options.name,
    cast,
    rules: RULES,
    interval: "500ms",
    env: {
      HTTP_PORT: "0",
      LOG_LEVEL: "debug",
      // The daemon's wall clock only, from a file this test rewrites (read every second).
      LD_PRELOAD: library,
      FAKETIME_TIMESTAMP_FILE: offsetFile,
      FAKETIME_CACHE_DURATION: "1",
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
    },
    strict: false,
    settle: "3s",
  });
  tl.at("0s").do(
    `the daemon's clock steps back an hour while gates move (seed ${seed})`,
    async (w) => {
      world = w;
      const daemon = w.daemons[0];
      if (!daemon) throw new Error("the daemon is not running");
      const ops = await opsUrlOf(daemon);
      const mover = moveGates(w, ledger, { everyMs: 1_000, minGapMs: 6_000, random });
      try {
        await sleep(options.beforeMs - DEFERRED_BEFORE_MS);
        // The duty mailbox defers around the step: its mail waits to retry when the clock
        // steps back. Briefly, so that no flight moves again meanwhile (a newer alert
        // would supersede the one waiting: delivery-order.ts, not what this test is about).
        w.smtp.script({ rcpt: DEFERRED });
        w.note("SMTP: duty@ deferred (451)");
        await sleep(DEFERRED_BEFORE_MS);
        writeFileSync(offsetFile, "-3600\n");
        w.note("the daemon's wall clock steps back an hour");
        await sleep(DEFERRED_AFTER_MS);
        w.smtp.script({ rcpt: () => undefined });
        w.note("SMTP: duty@ accepted again");
        await sleep(options.afterMs);
      } finally {
        await mover.stop();
      }
      w.note(`${mover.count} moves made; waiting for the daemon to deliver what is owed`);
      converged = await untilJudged(() => judge(w));
      const ready = await readyz(ops);
      if (ready.status !== 200) throw new Error(`not ready: ${JSON.stringify(ready.checks)}`);
      const samples = await scrape(ops);
      const lag = sampleValue(samples, "flightwatch_poll_lag_seconds") ?? -1;
      const steps = sampleValue(samples, "flightwatch_clock_steps_back_total") ?? 0;
      if (!(lag >= 0 && lag < 10) || steps < 1) {
        throw new Error(`poll lag ${lag} s, clock steps back seen ${steps}`);
      }
      const lines = logLines(daemon);
      const stepped = lines.filter((l) => l.msg.startsWith("the wall clock went back"));
      const errors = lines.filter((l) => l.level === "error");
      if (stepped.length !== 1 || errors.length > 0) {
        throw new Error(
          `expected one clock-step line and no error, got ${stepped.length} and: ${errors
            .map((l) => l.msg.slice(0, 120))
            .join(" | ")}`,
        );
      }
      const back = Math.round(Number(stepped[0]?.backMs) / 60_000);
      if (back !== 60) throw new Error(`the step was logged as ${back} min, not 60`);
      w.note(`ready, poll lag ${lag.toFixed(1)} s, the step logged once, no error`);
    },
  );

  try {
    const result = await tl.play();
    const { verdict } = finalVerdict(
      result,
      { ledger, judged: JUDGED },
      world ? sightings(world) : { up: [], polls: [], kills: [] },
      { seed, converged: converged !== undefined },
    );
    if (verdict.repeats > 0) throw new Error(`${verdict.repeats} repeats, with nothing killed`);
    return verdict;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
