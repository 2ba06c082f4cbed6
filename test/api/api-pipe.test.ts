/**
 * `flightwatch api flights --page-all --ndjson | head -3` (a README example): when the
 * reader goes away, the command ends quietly — exit 0, nothing on stderr (no EPIPE
 * stack trace) — and the paged walk stops making requests. A real child process whose
 * stdout the test closes after three lines, against the simulator with slow pages.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { spawnCli } from "../support/cli-process.js";

const TOKEN = "api-pipe-token";

describe("flightwatch api into a pipe that closes", () => {
  let sim: RunningSimulator;
  const requests: string[] = [];
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 5,
      live: false,
      tokens: [TOKEN],
      // 70 pages of today's flights at 150 ms each: a walk of ten seconds to interrupt.
      faults: { latencyMs: 150 },
      onResponse: (entry) => requests.push(entry.url),
    });
  });
  afterAll(() => sim.close());

  function api(args: string[]) {
    return spawnCli(["api", ...args], {
      FLIGHT_API_BASE_URL: sim.baseUrl,
      FLIGHT_API_TOKEN: TOKEN,
      FLIGHT_API_APP_ID: "",
      FLIGHT_API_APP_KEY: "",
    });
  }

  /** Resolves once `n` complete lines came, then closes the reading end (as `head -n` does). */
  function headLines(proc: ReturnType<typeof api>, n: number): Promise<string[]> {
    return new Promise((resolve) => {
      let text = "";
      const onData = (chunk: Buffer) => {
        text += String(chunk);
        const lines = text.split("\n");
        if (lines.length > n) {
          proc.child.stdout.off("data", onData);
          proc.child.stdout.destroy();
          resolve(lines.slice(0, n));
        }
      };
      proc.child.stdout.on("data", onData);
    });
  }

  it("--page-all --ndjson | head -3: exit 0, silent, and no further requests", async () => {
    requests.splice(0);
    const proc = api(["flights", "--page-all", "--ndjson"]);
    const lines = await headLines(proc, 3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty("id");
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe("");
    const made = requests.length;
    // The walk stopped at the page being read when the pipe closed, not 70 pages on.
    expect(made).toBeLessThan(10);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(requests).toHaveLength(made);
  }, 60_000);

  it("one JSON array into a closed pipe: exit 0, silent (printed whole at the end)", async () => {
    const proc = api(["destinations", "--page-all"]);
    await headLines(proc, 1);
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe("");
  }, 60_000);
});
