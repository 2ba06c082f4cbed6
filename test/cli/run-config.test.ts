/**
 * `flightwatch run` and `flightwatch config` refuse a bad configuration before doing
 * anything: exit 2 and one list naming every bad variable (or the config file and
 * line), so one start tells the operator everything to fix. `config` prints the
 * effective settings with every secret masked. `run` without a Redis exits 1 saying
 * how to get one. Each case is a child process; they run side by side.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/daemon/private-redis.js";
import { redisKeys } from "../../src/store/redis-keys.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { type CliProcess, spawnCli, testRedisEnv } from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { type LogLine, logLines, waitForLog } from "./run-harness.js";

/** Variables that would make a valid start, minus Redis (a test adds its own). */
const BASE_ENV = {
  FLIGHT_API_BASE_URL: "http://127.0.0.1:9/public/public-flights/v4",
  FLIGHTWATCH_RULES: "rules",
  HTTP_PORT: "off",
  // The test runner's own values must not leak into these cases.
  FLIGHTWATCH_CONFIG: "",
  SMTP_URL: "",
  EMAIL_FROM: "",
  LOG_FORMAT: "",
};
const TOKEN = "tok-9f8e7d6c5b4a-do-not-print";
const REDIS_PASSWORD = "redis-pw-0a1b2c3d";
const SMTP_PASSWORD = "smtp-pw-4e5f6a7b";
const DASHBOARD_TOKEN = "dash-tok-7e6d5c4b3a2f1e0d";
const METRICS_TOKEN = "metrics-tok-0f1e2d3c4b5a6978";
const APP_KEY = "appkey-1234567890abcdef";

/** Runs `flightwatch <args>` to its end. */
async function run(args: string[], env: Record<string, string>) {
  const proc: CliProcess = spawnCli(args, { ...BASE_ENV, ...env });
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe("flightwatch run / config: configuration", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fw-run-config-"));
    await writeFile(
      join(dir, "typo.yaml"),
      "# flightwatch settings\nPOLL_INTERVAL: 10s\nLOG_LEVEL: debug\nREDIS_ULR: redis://127.0.0.1:6379\n",
    );
    await writeFile(
      join(dir, "broken.yaml"),
      "POLL_INTERVAL: 10s\nLOG_LEVEL: [debug\nHTTP_PORT: 9\n",
    );
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("exits 2 naming every bad variable and a bad --role, all at once; never echoes a password", async () => {
    const bad = run(["run", "--role", "nope"], {
      POLL_INTERVAL: "fast",
      REDIS_URL: "http://user:hunter2@x",
      HTTP_PORT: "99999",
      SMTP_URL: "smtp://mailer:mail-pw-77@mail.example.com",
      LOG_LEVEL: "loud",
    });
    const typo = run(["run", "--config", join(dir, "typo.yaml")], {});
    const broken = run(["config", "--config", join(dir, "broken.yaml")], {});
    const noRedis = freePort().then((port) =>
      run(["run"], { REDIS_URL: `redis://127.0.0.1:${port}`, FLIGHTWATCH_PREFIX: "fw-never-used" }),
    );

    const b = await bad;
    expect(b.code).toBe(2);
    for (const name of [
      "--role",
      "POLL_INTERVAL",
      "REDIS_URL",
      "HTTP_PORT",
      "EMAIL_FROM",
      "LOG_LEVEL",
    ]) {
      expect(b.stderr, name).toMatch(new RegExp(`^  ${name}: `, "m"));
    }
    expect(b.stderr).toMatch(/6 configuration problems/);
    expect(b.stderr).toContain('"fast"');
    expect(b.stderr).toContain("99999");
    expect(b.stderr + b.stdout).not.toContain("hunter2");
    expect(b.stderr + b.stdout).not.toContain("mail-pw-77");

    // A misspelt key in a config file: the file, the line and the likely name.
    const t = await typo;
    expect(t.code).toBe(2);
    expect(t.stderr).toContain(`${join(dir, "typo.yaml")}:4 REDIS_ULR`);
    expect(t.stderr).toContain("did you mean `REDIS_URL`?");

    // A file that is not YAML: the file and the line of the mistake.
    const k = await broken;
    expect(k.code).toBe(2);
    expect(k.stderr).toMatch(new RegExp(`${escapeRegExp(join(dir, "broken.yaml"))}:[23]\\b`));

    // Nothing answers at REDIS_URL: exit 1, naming the variable and how to get a Redis.
    const r = await noRedis;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("REDIS_URL");
    expect(r.stderr).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toMatch(/redis-server|docker run/);
  }, 60_000);

  it("config prints every setting with secrets masked; exit 0 when valid, 2 when not", async () => {
    const secrets = {
      FLIGHT_API_TOKEN: TOKEN,
      REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379/0`,
      SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@mail.example.com:587`,
      EMAIL_FROM: "alerts@example.com",
    };
    // The example rules need their variables: config checks the rules run would load.
    const valid = run(["config", "--vars-file", "rules/demo.env"], {
      ...secrets,
      POLL_INTERVAL: "10s",
      DASHBOARD_TOKEN,
      METRICS_TOKEN,
    });
    // Invalid, as JSON, with the other kind of upstream credentials (one kind, not both).
    const invalid = run(["config", "--json"], {
      ...secrets,
      FLIGHT_API_TOKEN: "",
      FLIGHT_API_APP_ID: "my-app",
      FLIGHT_API_APP_KEY: APP_KEY,
      POLL_INTERVAL: "soon",
      // Credentials where none belong: in the base URL's user info and query.
      FLIGHT_API_BASE_URL: `https://u:${URL_PASSWORD}@api.example.com/v4?app_key=${URL_KEY}`,
      REDIS_URL: `redis://127.0.0.1:6379/0?password=${URL_KEY}`,
    });

    const v = await valid;
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^POLL_INTERVAL +10s +\(env\)$/m);
    expect(v.stdout).toMatch(/^FLIGHT_API_TOKEN +\*{8} +\(env\)$/m);
    expect(v.stdout).toMatch(/^REDIS_URL +redis:\/\/:\*\*\*@127\.0\.0\.1:6379\/0 +\(env\)$/m);
    expect(v.stdout).toMatch(/^SMTP_URL +smtp:\/\/mailer:\*\*\*@mail\.example\.com:587 +\(env\)$/m);
    expect(v.stdout).toMatch(/^SHUTDOWN_TIMEOUT +10s$/m);
    expect(v.stdout).toMatch(/^DASHBOARD_TOKEN +\*{8} +\(env\)$/m);
    expect(v.stdout).toMatch(/^METRICS_TOKEN +\*{8} +\(env\)$/m);
    expect(v.stdout).toContain("configuration is valid");

    const i = await invalid;
    expect(i.code).toBe(2);
    const parsed = JSON.parse(i.stdout) as {
      variables: Array<{ name: string; value: string; source: string }>;
      problems: string[];
    };
    expect(parsed.problems).toEqual([
      expect.stringMatching(/^FLIGHT_API_BASE_URL: must not contain credentials/),
      expect.stringMatching(/^POLL_INTERVAL: .*"soon"/),
    ]);
    expect(parsed.variables.find((x) => x.name === "FLIGHT_API_APP_KEY")).toMatchObject({
      value: "********",
      source: "env",
    });
    expect(parsed.variables.find((x) => x.name === "FLIGHT_API_APP_ID")?.value).toBe("my-app");

    for (const out of [v, i]) {
      const text = out.stdout + out.stderr;
      for (const secret of [
        TOKEN,
        APP_KEY,
        REDIS_PASSWORD,
        SMTP_PASSWORD,
        URL_PASSWORD,
        URL_KEY,
        DASHBOARD_TOKEN,
        METRICS_TOKEN,
      ]) {
        expect(text).not.toContain(secret);
      }
    }
  }, 60_000);
});

describe("flightwatch run: SMTP credentials in clear", () => {
  let t: TestRedis;
  beforeAll(async () => {
    t = await testRedis("run-smtp-plaintext");
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  /** A worker started with SMTP credentials over smtp://, and `env`; its log once it runs. */
  async function workerLog(env: Record<string, string>): Promise<LogLine[]> {
    const proc = spawnCli(["run", "--role", "worker", "--vars-file", "rules/demo.env"], {
      ...BASE_ENV,
      ...testRedisEnv(t.prefix),
      SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:2525`,
      EMAIL_FROM: "alerts@example.com",
      LOG_FORMAT: "json",
      ...env,
    });
    try {
      await waitForLog(proc, (l) => /running/.test(l.msg));
      proc.child.kill("SIGTERM");
      expect(await proc.exited, proc.stderr()).toBe(0);
      return logLines(proc);
    } finally {
      proc.child.kill("SIGKILL");
    }
  }

  it("refuses to start with another number of delivery shards than the deployment's, naming DELIVERY_SHARDS, before opening a queue", async () => {
    const keys = redisKeys(t.prefix);
    await t.redis.set(keys.deliveryShardCount, "1");
    const before = (await t.redis.keys(keys.pattern)).sort();
    const result = await run(["run", "--role", "worker", "--vars-file", "rules/demo.env"], {
      ...testRedisEnv(t.prefix),
      DELIVERY_SHARDS: "4",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/DELIVERY_SHARDS.*is 4 here.*delivers over 1 shards/s);
    expect(result.stderr).toContain("DELIVERY_SHARDS=1");
    // No queue of the other layout was opened (each would have written its meta key).
    expect((await t.redis.keys(keys.pattern)).sort()).toEqual(before);
    await t.redis.del(keys.deliveryShardCount);
  }, 60_000);

  it("warns once at start with SMTP_ALLOW_PLAINTEXT_AUTH=true, and not without it", async () => {
    const [optedOut, safe] = await Promise.all([
      workerLog({ SMTP_ALLOW_PLAINTEXT_AUTH: "true" }),
      workerLog({}),
    ]);
    const warnings = (lines: LogLine[]) =>
      lines.filter((l) => /SMTP_ALLOW_PLAINTEXT_AUTH/.test(l.msg));
    expect(warnings(optedOut)).toEqual([
      expect.objectContaining({
        level: "warn",
        msg: expect.stringMatching(
          /credentials of SMTP_URL are sent in clear when 127\.0\.0\.1:2525 offers no STARTTLS/,
        ),
      }),
    ]);
    expect(warnings(safe)).toEqual([]);
    expect(JSON.stringify(optedOut)).not.toContain(SMTP_PASSWORD);
  }, 60_000);

  it("warns at start when passengers' emails would have no unsubscribe link (no PUBLIC_URL)", async () => {
    const keys = redisKeys(t.prefix);
    const store = new SubscriptionStore(t.redis, keys, { zone: "Europe/Amsterdam" });
    const date = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await store.add(
      [
        {
          id: "anna",
          flight: "KL1001",
          date,
          preset: "essentials",
          channel: { type: "email", to: "anna@example.com" },
          labels: {},
          status: "active",
          createdAt: Date.now(),
        },
      ],
      Date.now(),
    );
    const [without, withUrl] = await Promise.all([
      workerLog({}),
      workerLog({ PUBLIC_URL: "https://flights.example.com" }),
    ]);
    const warnings = (lines: LogLine[]) => lines.filter((l) => /unsubscribe link/.test(l.msg));
    expect(warnings(without)).toEqual([
      expect.objectContaining({ level: "warn", msg: expect.stringContaining("set PUBLIC_URL") }),
    ]);
    expect(warnings(withUrl)).toEqual([]);
  }, 60_000);
});

const URL_PASSWORD = "url-password-8c1d";
const URL_KEY = "url-key-41fe0a";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
