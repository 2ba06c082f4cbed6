/**
 * The SIGKILL scenario, shared by the chaos test (20+ kills) and the fast subset in
 * `npm test` (3 kills): one `flightwatch run` against the simulator, a real Redis and
 * real receivers, killed again and again — half the time at a random instant, half
 * the time by itself at a named crash point — and started again, while the gates of
 * a dozen flights keep moving. Three rules see the moves: a signed webhook of every
 * gate change, a signed webhook that groups them (`group_wait`), and an email to a
 * duty desk about four of the flights. The deliveries are judged against the test's
 * own ledger of the gates it set (kill-support.ts): each flight's chain of gates
 * once, every value owed, nothing else; and the last daemon must be ready and stop
 * cleanly.
 */
import { expect } from "vitest";
import { timeline, type World } from "../acceptance/timeline.js";
import { opsUrlOf, readyz } from "../cli/run-harness.js";
import { sleep } from "../support/crash-run.js";
import {
  chaosSeed,
  committedPolls,
  finalVerdict,
  gateScenario,
  judgeWorld,
  type Kill,
  type KillLoopOptions,
  killLoop,
  moveGates,
  seededRandom,
  untilJudged,
  upSpans,
  type Verdict,
} from "./kill-support.js";

/** Every crash point a `run` daemon of role `all` passes, most telling first. */
export const RUN_CRASH_POINTS = [
  "detect.after-commit",
  "dispatch.before-commit",
  "notify.before-ack",
  "deliver.after-send",
  "dispatch.after-commit",
  "deliver.before-send",
  "dispatch.before-flush-commit",
  "detect.before-commit",
] as const;

/** How hard the scenario goes. */
export interface SigkillScenarioOptions {
  name: string;
  kills: number;
  crashPoints?: readonly string[];
  /** A gate move this often (± half), over all flights. */
  changeEveryMs?: number;
  /** Longest wait for the last daemon to deliver what is owed. */
  catchUpMs?: number;
  /** Random kills after a start / after "running", ms (see KillLoopOptions). */
  randomAfterMs?: KillLoopOptions["randomAfterMs"];
}

/** What a run did, for the test's summary. */
export interface SigkillOutcome {
  seed: number;
  kills: Kill[];
  moves: number;
  verdict: Verdict;
  report: string;
  seconds: number;
}

/** Plays the scenario; throws (with the timeline's report) when anything is off. */
export async function sigkillScenario(options: SigkillScenarioOptions): Promise<SigkillOutcome> {
  const seed = chaosSeed();
  const random = seededRandom(seed);
  const started = Date.now();
  const scenario = gateScenario(2101, true);
  const { ledger } = scenario;
  let kills: Kill[] = [];
  let moves = 0;
  let converged: Verdict | undefined;
  let world: World | undefined;
  const sightings = (w: World) => ({
    up: upSpans(w),
    polls: committedPolls(w),
    kills: kills.map((k) => k.at),
  });

  const tl = timeline({
    name: options.name,
    cast: scenario.cast,
    rules: scenario.rules,
    interval: "500ms",
    // Every daemon serves /readyz: the last one must be ready at the end.
    // A killed worker's sends go to the next one within 8 s (a 4 s lock). (A 1 s lock,
    // the timelines' default, is shorter than the event-loop stalls of a loaded 2-core
    // machine: a live worker then loses its lock and its send runs twice, under one id.)
    // Debug: every committed poll is logged, for the oracle to know what was seen.
    env: { HTTP_PORT: "0", DELIVERY_STALL_TIMEOUT: "8s", LOG_LEVEL: "debug" },
    // The oracle below judges every delivery; the timeline keeps its own checks
    // (signatures, daemons that end by themselves or do not stop cleanly).
    strict: false,
    settle: "3s",
  });
  tl.at("0s").do(`${options.kills} kills while gates move (seed ${seed})`, async (w) => {
    world = w;
    const mover = moveGates(w, ledger, {
      everyMs: options.changeEveryMs ?? 500,
      // Longer than a restart: most values are owed (see OWED_MS).
      minGapMs: 6_000,
      random,
    });
    try {
      kills = await killLoop(w, {
        slot: 0,
        kills: options.kills,
        crashPoints: options.crashPoints ?? RUN_CRASH_POINTS,
        random,
        randomAfterMs: options.randomAfterMs ?? { start: [300, 3_000], running: [200, 3_000] },
        maxPass: 4,
        pointTimeoutMs: 20_000,
      });
      // Changes go on a little after the last kill, for the last daemon to see.
      await sleep(2_000);
    } finally {
      await mover.stop();
      moves = mover.count;
    }
    w.note(`${moves} moves made; waiting for the last daemon to deliver what is owed`);
    const verdict = await untilJudged(
      () => judgeWorld(w, scenario, sightings(w)),
      options.catchUpMs ?? 60_000,
    );
    converged = verdict;
    w.note(`delivered: ${verdict.problems.length === 0 ? "all owed" : "NOT all owed"}`);
    const last = w.daemons[0];
    if (!last) throw new Error("no daemon left running");
    const ready = await readyz(await opsUrlOf(last));
    if (ready.status !== 200) {
      throw new Error(`the last daemon is not ready: ${JSON.stringify(ready.checks)}`);
    }
    w.note("the last daemon answers /readyz 200");
  });

  const result = await tl.play();
  const { verdict, report } = finalVerdict(
    result,
    scenario,
    world ? sightings(world) : { up: [], polls: [], kills: [] },
    // Repeats under one id are judged by the oracle (allowed only across a kill).
    { seed, converged: converged !== undefined, ignore: (p) => p.startsWith("duplicate: ") },
  );
  expect(kills.length).toBe(options.kills);
  return { seed, kills, moves, verdict, report, seconds: (Date.now() - started) / 1000 };
}
