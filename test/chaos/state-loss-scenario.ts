/**
 * Redis loses flightwatch's data under a running daemon, shared by the chaos test and
 * its fast subset in `npm test`: one `flightwatch run` against the simulator and a Redis
 * of the test's own, which is restarted without its data (as a Redis without
 * persistence, or an empty replica promoted) again and again while the gates of a
 * dozen flights keep moving. Three rules see the moves (a signed webhook, a grouped
 * one, an email desk).
 *
 * Judged by the chaos ledger (kill-support.ts) with each loss as a reset: every value
 * the flights kept while the daemon watched arrives, once, in order; across a loss a
 * chain may go on from the value the silent re-baseline took (what changed between the
 * last look before the loss and the re-baseline is taken in silently, as documented);
 * nothing arrives twice. And the daemon says so once per loss, logs no other error,
 * is ready at the end and stops cleanly.
 */
import { Redis } from "ioredis";
import { expect } from "vitest";
import { timeline, type World } from "../acceptance/timeline.js";
import { logLines, opsUrlOf, readyz } from "../cli/run-harness.js";
import { sleep, waitFor } from "../support/crash-run.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  chaosSeed,
  committedPolls,
  finalVerdict,
  gateScenario,
  judgeWorld,
  moveGates,
  type ResetSpan,
  seededRandom,
  untilJudged,
  upSpans,
  type Verdict,
} from "./kill-support.js";

/** How hard the scenario goes. */
export interface StateLossOptions {
  name: string;
  /** Losses of the data, one after the other. */
  losses: number;
  /** Time between two losses (the gates keep moving), ms. */
  gapMs: number;
}

const LOST = "Redis lost flightwatch's state";

/** Plays the scenario; throws (with the timeline's report) when anything is off. */
export async function stateLossScenario(options: StateLossOptions): Promise<Verdict> {
  const seed = chaosSeed();
  const random = seededRandom(seed);
  const server: RedisServer = await startRedisServer();
  const admin = new Redis(server.url, { maxRetriesPerRequest: null });
  admin.on("error", () => undefined);
  const scenario = gateScenario(2301);
  const { ledger } = scenario;
  const resets: ResetSpan[] = [];
  let world: World | undefined;
  let converged: Verdict | undefined;
  const sightings = (w: World) => ({
    up: upSpans(w),
    polls: committedPolls(w),
    kills: [],
    resets,
  });

  const tl = timeline({
    name: options.name,
    cast: scenario.cast,
    rules: scenario.rules,
    interval: "500ms",
    redisUrl: server.url,
    // Debug: every committed poll is logged, for the oracle to know what was seen.
    env: { HTTP_PORT: "0", LOG_LEVEL: "debug" },
    strict: false,
    settle: "3s",
  });
  tl.at("0s").do(
    `${options.losses} losses of Redis's data while gates move (seed ${seed})`,
    async (w) => {
      world = w;
      const watermark = () => admin.hget(w.keys.detection, "watermark");
      const mover = moveGates(w, ledger, { everyMs: 500, minGapMs: 6_000, random });
      try {
        for (let i = 0; i < options.losses; i++) {
          await sleep(options.gapMs);
          const from = Date.now();
          // Down briefly and back empty: SHUTDOWN or SIGKILL, then the data is gone.
          await server.restart({ hard: i % 2 === 1, downMs: 300, wipe: true });
          w.note(`Redis restarted without its data (${i % 2 === 1 ? "SIGKILL" : "SHUTDOWN"})`);
          await waitFor(async () => (await watermark().catch(() => null)) !== null, 30_000);
          resets.push({ from, to: Date.now() });
          w.note("re-baselined");
        }
        await sleep(3_000);
      } finally {
        await mover.stop();
      }
      w.note(`${mover.count} moves made; waiting for the daemon to deliver what is owed`);
      converged = await untilJudged(() => judgeWorld(w, scenario, sightings(w)));
      const daemon = w.daemons[0];
      if (!daemon) throw new Error("the daemon is not running");
      const ready = await readyz(await opsUrlOf(daemon));
      if (ready.status !== 200) throw new Error(`not ready: ${JSON.stringify(ready.checks)}`);
      // Each loss said once; no other error (no NOGROUP loop, no error per reconnect).
      const errors = logLines(daemon).filter((l) => l.level === "error");
      const lossLines = errors.filter((l) => l.msg.startsWith(LOST));
      if (lossLines.length !== options.losses || errors.length !== lossLines.length) {
        throw new Error(
          `expected ${options.losses} loss lines and no other error, got: ${errors
            .map((l) => l.msg.slice(0, 120))
            .join(" | ")}`,
        );
      }
      w.note(`ready; ${lossLines.length} loss line(s), no other error`);
    },
  );

  try {
    const result = await tl.play();
    const { verdict } = finalVerdict(
      result,
      scenario,
      world ? sightings(world) : { up: [], polls: [], kills: [], resets },
      { seed, converged: converged !== undefined },
    );
    // No repeat at all: nothing was killed.
    expect(verdict.repeats).toBe(0);
    return verdict;
  } finally {
    admin.disconnect();
    await server.close();
  }
}
