/**
 * `flightwatch config` checks what `run` would refuse, so "configuration is valid" means
 * `run` starts: the rule files run would load (every problem with file:line:col), and
 * with `--check-connections`, Redis (a wrong password says so, naming REDIS_URL) and the
 * upstream (401 naming the credential variables, 404 as a wrong base URL path,
 * unreachable as such). Exit 2 on any problem. Real child processes, a private
 * redis-server with a password, the simulator on port 0.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/daemon/private-redis.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/http/start-simulator.js";
import { spawnCli } from "../support/cli-process.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";

const REDIS_PASSWORD = "redis-pw-5e6f7a8b9c";
const WRONG_PASSWORD = "wrong-pw-0a1b2c3d4e";
const TOKEN = "config-check-token-1f2e3d";

interface Verdict {
  problems: string[];
  rules: { dir: string; rules: number; files: number; problems: string[] };
  connections: Array<{ name: string; ok: boolean; detail: string; code?: string }> | null;
  ok: boolean;
}

const GOOD_RULE = "rules:\n  - id: gates\n    changes: [gate]\n    channels: [{ type: console }]\n";

let dir: string;
let redis: RedisServer;
let sim: RunningSimulator;
let t: TestRedis;
beforeAll(async () => {
  // `dir` holds a good and a bad rule file; `dir/only-good` the good one alone.
  dir = await mkdtemp(join(tmpdir(), "fw-config-check-"));
  await mkdir(join(dir, "only-good"));
  await writeFile(join(dir, "only-good", "good.yaml"), GOOD_RULE);
  await writeFile(join(dir, "good.yaml"), GOOD_RULE);
  await writeFile(
    join(dir, "bad.yaml"),
    "rules:\n  - id: typo\n    changes: [gaet]\n    channels: [{ type: console }]\n",
  );
  redis = await startRedisServer({ password: REDIS_PASSWORD });
  sim = await startSimulator({ seed: 2, live: false, tokens: [TOKEN] });
  // Nothing here writes to Redis; the prefix is the test's own all the same.
  t = await testRedis("config-check");
}, 30_000);
afterAll(async () => {
  await t?.cleanup();
  await sim?.close();
  await redis?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Variables of a start that would succeed: the test Redis, the simulator, the good rule. */
function goodEnv(): Record<string, string> {
  return {
    FLIGHT_API_BASE_URL: sim.baseUrl,
    FLIGHT_API_TOKEN: TOKEN,
    FLIGHT_API_APP_ID: "",
    FLIGHT_API_APP_KEY: "",
    REDIS_URL: TEST_REDIS_URL,
    FLIGHTWATCH_PREFIX: t.prefix,
    FLIGHTWATCH_RULES: join(dir, "only-good"),
    HTTP_PORT: "off",
    FLIGHTWATCH_CONFIG: "",
    SMTP_URL: "",
    EMAIL_FROM: "",
  };
}

async function run(args: string[], env: Record<string, string>) {
  const proc = spawnCli(args, env);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 40_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe("flightwatch config checks what run would refuse", () => {
  it("the rule files: every problem with file:line:col, exit 2 — as run does", async () => {
    const env = { ...goodEnv(), FLIGHTWATCH_RULES: dir };
    const [text, json, daemon] = await Promise.all([
      run(["config"], env),
      run(["config", "--json"], env),
      run(["run"], env),
    ]);
    expect(text.code, text.stdout).toBe(2);
    expect(text.stdout).toContain("configuration is valid");
    expect(text.stdout).toContain(`rules: 1 problem in ${dir}:`);
    expect(text.stdout).toMatch(
      new RegExp(`^  ${escapeRegExp(join(dir, "bad.yaml"))}:3:\\d+ rule \`typo\``, "m"),
    );
    const verdict = JSON.parse(json.stdout) as Verdict;
    expect(json.code).toBe(2);
    expect(verdict.problems).toEqual([]);
    expect(verdict.rules.problems).toHaveLength(1);
    expect(verdict.ok).toBe(false);
    // run refuses the same rules: config no longer says "valid" where run exits 2.
    expect(daemon.code).toBe(2);
    expect(daemon.stderr).toContain("[FW_ERR_RULE_INVALID]");
  }, 60_000);

  it("--check-connections: everything answers, exit 0", async () => {
    const out = await run(["config", "--check-connections", "--json"], goodEnv());
    expect(out.code, out.stdout + out.stderr).toBe(0);
    const verdict = JSON.parse(out.stdout) as Verdict;
    expect(verdict.connections).toEqual([
      expect.objectContaining({ name: "Redis", ok: true }),
      expect.objectContaining({ name: "upstream", ok: true }),
    ]);
    const text = await run(["config"], goodEnv());
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("--check-connections");
  }, 60_000);

  it("--check-connections: a wrong Redis password, a refused token, a base URL without its path, an upstream not there", async () => {
    const port = Number(new URL(redis.url).port);
    const free = await freePort();
    const [wrongPassword, noPassword, refused, wrongPath, unreachable] = await Promise.all([
      run(["config", "--check-connections", "--json"], {
        ...goodEnv(),
        REDIS_URL: `redis://:${WRONG_PASSWORD}@127.0.0.1:${port}`,
      }),
      run(["config", "--check-connections", "--json"], {
        ...goodEnv(),
        REDIS_URL: `redis://127.0.0.1:${port}`,
      }),
      run(["config", "--check-connections", "--json"], {
        ...goodEnv(),
        FLIGHT_API_TOKEN: "not-the-token-9a8b7c",
      }),
      run(["config", "--check-connections", "--json"], {
        ...goodEnv(),
        FLIGHT_API_BASE_URL: sim.url,
      }),
      run(["config", "--check-connections", "--json"], {
        ...goodEnv(),
        FLIGHT_API_BASE_URL: `http://127.0.0.1:${free}/public/public-flights/v4`,
      }),
    ]);
    const failed = (out: { stdout: string }, name: string) =>
      (JSON.parse(out.stdout) as Verdict).connections?.find((c) => c.name === name);
    for (const out of [wrongPassword, noPassword, refused, wrongPath, unreachable]) {
      expect(out.code, out.stdout + out.stderr).toBe(2);
      expect(out.stdout + out.stderr).not.toContain(WRONG_PASSWORD);
      expect(out.stdout + out.stderr).not.toContain("not-the-token-9a8b7c");
    }
    expect(failed(wrongPassword, "Redis")).toMatchObject({ ok: false, code: "FW_ERR_REDIS_AUTH" });
    expect(failed(wrongPassword, "Redis")?.detail).toMatch(/^REDIS_URL: .*refused the password/);
    expect(failed(noPassword, "Redis")).toMatchObject({ ok: false, code: "FW_ERR_REDIS_AUTH" });
    expect(failed(noPassword, "Redis")?.detail).toMatch(/^REDIS_URL: .*requires a password/);
    expect(failed(refused, "upstream")).toMatchObject({ ok: false, code: "FW_ERR_UPSTREAM_AUTH" });
    expect(failed(refused, "upstream")?.detail).toContain("FLIGHT_API_TOKEN");
    expect(failed(wrongPath, "upstream")).toMatchObject({
      ok: false,
      code: "FW_ERR_UPSTREAM_BASE_URL",
    });
    expect(failed(wrongPath, "upstream")?.detail).toContain(sim.baseUrl);
    expect(failed(unreachable, "upstream")).toMatchObject({
      ok: false,
      code: "FW_ERR_UPSTREAM_NETWORK",
    });
    expect(failed(unreachable, "upstream")?.detail).toMatch(/unreachable/);
  }, 90_000);

  it("run with a wrong Redis password says the password was refused (exit 2), not that no Redis answers", async () => {
    const port = Number(new URL(redis.url).port);
    const out = await run(["run"], {
      ...goodEnv(),
      REDIS_URL: `redis://:${WRONG_PASSWORD}@127.0.0.1:${port}`,
    });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toMatch(/^flightwatch: REDIS_URL: .*refused the password/m);
    expect(out.stderr).toContain("[FW_ERR_REDIS_AUTH]");
    expect(out.stderr).not.toContain("no Redis answers");
    expect(out.stderr).not.toContain(WRONG_PASSWORD);
  }, 60_000);
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
