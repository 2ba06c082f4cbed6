/**
 * A duration without a unit is refused wherever a setting is read — environment
 * variables, the config file, command-line flags — with exit 2 and a message naming
 * the variable, the file line or the flag. Read as milliseconds, `POLL_INTERVAL=500`
 * would poll a live upstream twice a second. Each case is a real child process.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnCli } from "../support/cli-process.js";

/** Nothing listens on port 9: a start that got past the settings would fail differently. */
const ENV = {
  FLIGHT_API_BASE_URL: "http://127.0.0.1:9/public/public-flights/v4",
  FLIGHT_API_TOKEN: "duration-units-token",
  REDIS_URL: "redis://127.0.0.1:9",
  HTTP_PORT: "off",
  FLIGHTWATCH_CONFIG: "",
  POLL_INTERVAL: "",
};

async function run(args: string[], env: Record<string, string> = {}) {
  const proc = spawnCli(args, { ...ENV, ...env });
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stderr: proc.stderr(), stdout: proc.stdout() };
}

describe("durations need a unit", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fw-duration-units-"));
    await writeFile(join(dir, "flightwatch.yaml"), "LOG_LEVEL: info\nPOLL_INTERVAL: 500\n");
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("exits 2 naming the variable, the file line or the flag", async () => {
    const [env, file, config, watch, overlap, simulate] = await Promise.all([
      run(["run"], { POLL_INTERVAL: "500", SHUTDOWN_TIMEOUT: "120" }),
      run(["run", "--config", join(dir, "flightwatch.yaml")]),
      run(["config"], { FLIGHT_API_TIMEOUT: "30" }),
      run(["watch", "--interval", "500"]),
      run(["watch", "--overlap", "60", "--reconcile", "0"]),
      run(["simulate", "--port", "0", "--latency", "50"]),
    ]);
    expect(env.code, env.stderr).toBe(2);
    expect(env.stderr).toMatch(/^ {2}POLL_INTERVAL: "500" has no unit; .*500s or 500ms/m);
    expect(env.stderr).toMatch(/^ {2}SHUTDOWN_TIMEOUT: "120" has no unit/m);

    expect(file.code, file.stderr).toBe(2);
    expect(file.stderr).toContain(
      `${join(dir, "flightwatch.yaml")}:2 POLL_INTERVAL: "500" has no unit`,
    );

    expect(config.code, config.stderr).toBe(2);
    expect(config.stdout).toMatch(/^ {2}FLIGHT_API_TIMEOUT: "30" has no unit/m);

    expect(watch.code, watch.stderr).toBe(2);
    expect(watch.stderr).toMatch(/^flightwatch: --interval: "500" has no unit/);
    // A bare 0 stays allowed where 0 means "off": only --overlap is named.
    expect(overlap.code, overlap.stderr).toBe(2);
    expect(overlap.stderr).toMatch(/^flightwatch: --overlap: "60" has no unit/);
    expect(overlap.stderr).not.toContain("--reconcile");

    expect(simulate.code, simulate.stderr).toBe(2);
    expect(simulate.stderr).toMatch(/^flightwatch: --latency: "50" has no unit/);
  }, 60_000);
});
