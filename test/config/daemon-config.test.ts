import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readConfigFile } from "../../src/config/config-file.js";
import { CONFIG_VARIABLES } from "../../src/config/config-variables.js";
import {
  configSourcesFor,
  effectiveEnv,
  readDaemonConfig,
} from "../../src/config/daemon-config.js";
import { ConfigError, ConfigProblemsError, ErrorCode } from "../../src/errors.js";

const BASE = { FLIGHT_API_BASE_URL: "https://api.example/public-flights/v4" };

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigProblemsError) return err.problems.map((p) => p.setting);
    if (err instanceof ConfigError) return [err.setting];
    throw err;
  }
  return [];
}

const dirs: string[] = [];
function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "fw-config-"));
  dirs.push(dir);
  const path = join(dir, "flightwatch.yaml");
  writeFileSync(path, text);
  return path;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("readDaemonConfig", () => {
  it("with the simulator's port off, the dashboard says how to turn it on", () => {
    const { env, options } = configSourcesFor(
      { simulator: true, dashboard: true },
      { DASHBOARD_TOKEN: "a-token-of-sixteen-chars" },
    );
    let message = "";
    try {
      readDaemonConfig(env, options);
    } catch (err) {
      message = String((err as Error).message);
    }
    expect(message).toContain("HTTP_PORT is off (the simulator's default): set HTTP_PORT=8080");
    const on = configSourcesFor(
      { simulator: true, dashboard: true },
      { DASHBOARD_TOKEN: "a-token-of-sixteen-chars", HTTP_PORT: "8080" },
    );
    expect(readDaemonConfig(on.env, on.options).dashboard).toBe(true);
  });

  it("takes the defaults when only the upstream is given", () => {
    const config = readDaemonConfig(BASE);
    expect(config.role).toBe("all");
    expect(config.client?.baseUrl).toBe(BASE.FLIGHT_API_BASE_URL);
    expect(config.redis).toEqual({
      url: "redis://127.0.0.1:6379",
      prefix: "flightwatch",
      deliveryShards: 1,
    });
    // Loopback unless HTTP_HOST says otherwise (the container image sets 0.0.0.0).
    expect(config.http).toEqual({ port: 8080, host: "127.0.0.1" });
    expect(readDaemonConfig({ ...BASE, HTTP_HOST: "0.0.0.0" }).http?.host).toBe("0.0.0.0");
    expect(config.detector.intervalMs).toBe(30_000);
    expect(config.log.level).toBe("info");
    expect(config.shutdownTimeoutMs).toBe(10_000);
    expect(config.dashboard).toBe(false);
    expect(config.redisGiven).toBe(false);
  });

  it("reports every bad variable at once, each by name", () => {
    const env = {
      POLL_INTERVAL: "fast",
      REDIS_URL: "http://x",
      HTTP_PORT: "99999",
      LOG_LEVEL: "loud",
      SMTP_URL: "smtp://u:p@mail",
      SHUTDOWN_TIMEOUT: "soon",
      DASHBOARD: "maybe",
      FLIGHT_API_APP_ID: "id-only",
    };
    const settings = problemsOf(() => readDaemonConfig(env));
    expect(settings.sort()).toEqual(
      [
        "FLIGHT_API_BASE_URL",
        "FLIGHT_API_APP_KEY",
        "REDIS_URL",
        "POLL_INTERVAL",
        "EMAIL_FROM",
        "HTTP_PORT",
        "LOG_LEVEL",
        "SHUTDOWN_TIMEOUT",
        "DASHBOARD",
      ].sort(),
    );
  });

  it("reads the upstream's limits and the poll deadline, from a file too, each refused by name", () => {
    const config = readDaemonConfig(BASE, {
      configFile: file(
        "flight_api_request_timeout: 90s\nflight_api_max_body: 8MB\npoll_timeout: 2m\n",
      ),
    });
    expect(config.client).toMatchObject({ requestTimeoutMs: 90_000, maxBodyBytes: 8 * 1024 ** 2 });
    expect(config.detector.pollTimeoutMs).toBe(120_000);
    const settings = problemsOf(() =>
      readDaemonConfig({
        ...BASE,
        FLIGHT_API_REQUEST_TIMEOUT: "60",
        FLIGHT_API_MAX_BODY: "32",
        POLL_TIMEOUT: "300",
      }),
    );
    expect(settings.sort()).toEqual(
      ["FLIGHT_API_MAX_BODY", "FLIGHT_API_REQUEST_TIMEOUT", "POLL_TIMEOUT"].sort(),
    );
  });

  it("lists the problems in its message, one per line, with the stable code", () => {
    try {
      readDaemonConfig({ POLL_INTERVAL: "fast", HTTP_PORT: "x" }, { simulator: true });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigProblemsError);
      const e = err as ConfigProblemsError;
      expect(e.code).toBe(ErrorCode.CONFIG_INVALID);
      expect(e.message.split("\n").slice(1)).toEqual([
        expect.stringMatching(/^ {2}POLL_INTERVAL: /),
        expect.stringMatching(/^ {2}HTTP_PORT: /),
      ]);
    }
  });

  it("needs no upstream for a worker or with the simulator, but still checks the zone", () => {
    expect(readDaemonConfig({}, { role: "worker" }).client).toBeUndefined();
    expect(readDaemonConfig({}, { simulator: true }).client).toBeUndefined();
    expect(
      problemsOf(() => readDaemonConfig({ AIRPORT_TIMEZONE: "Mars/Base" }, { role: "worker" })),
    ).toHaveLength(1);
  });

  it("refuses an unknown role and a dashboard without its port", () => {
    expect(problemsOf(() => readDaemonConfig(BASE, { role: "leader" }))).toEqual(["--role"]);
    expect(
      problemsOf(() =>
        readDaemonConfig({
          ...BASE,
          HTTP_PORT: "off",
          DASHBOARD: "true",
          DASHBOARD_TOKEN: "0123456789abcdef",
        }),
      ),
    ).toEqual(["DASHBOARD"]);
    expect(readDaemonConfig({ ...BASE, HTTP_PORT: "off" }).http).toBeUndefined();
  });

  it("requires DASHBOARD_TOKEN with the dashboard, naming both variables; a token of some length", () => {
    const none = (() => {
      try {
        readDaemonConfig({ ...BASE, DASHBOARD: "true" });
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error("no error");
    })();
    expect(problemsOf(() => readDaemonConfig({ ...BASE, DASHBOARD: "true" }))).toEqual([
      "DASHBOARD_TOKEN",
    ]);
    expect(none.message).toMatch(/DASHBOARD_TOKEN: is required with DASHBOARD=true/);
    expect(
      problemsOf(() => readDaemonConfig({ ...BASE, DASHBOARD: "true", DASHBOARD_TOKEN: "short" })),
    ).toEqual(["DASHBOARD_TOKEN"]);
    expect(
      problemsOf(() => readDaemonConfig({ ...BASE, METRICS_TOKEN: "has spaces in it, sixteen+" })),
    ).toEqual(["METRICS_TOKEN"]);
    const token = "0123456789abcdef0123";
    const config = readDaemonConfig({
      ...BASE,
      DASHBOARD: "true",
      DASHBOARD_TOKEN: token,
      METRICS_TOKEN: `m-${token}`,
    });
    expect(config).toMatchObject({
      dashboard: true,
      dashboardToken: token,
      metricsToken: `m-${token}`,
    });
    // Metrics are open unless METRICS_TOKEN is set.
    expect(readDaemonConfig(BASE).metricsToken).toBeUndefined();
  });

  it("refuses a duration without a unit in every duration variable; a bare 0 only means 0", () => {
    const durations = [
      "POLL_INTERVAL",
      "POLL_OVERLAP",
      "RECONCILE_INTERVAL",
      "SNAPSHOT_TTL",
      "OUTBOX_RETENTION",
      "SHUTDOWN_TIMEOUT",
      "DELIVERY_STALL_TIMEOUT",
      "FLIGHT_API_CONNECT_TIMEOUT",
      "FLIGHT_API_TIMEOUT",
      "FLIGHT_API_MAX_RETRY_AFTER",
    ];
    const bare = Object.fromEntries(durations.map((name) => [name, "500"]));
    expect(problemsOf(() => readDaemonConfig({ ...BASE, ...bare })).sort()).toEqual(
      [...durations].sort(),
    );
    expect(readDaemonConfig({ ...BASE, RECONCILE_INTERVAL: "0" }).detector.reconcileEveryMs).toBe(
      0,
    );
    expect(readDaemonConfig({ ...BASE, POLL_OVERLAP: "0" }).detector.overlapMs).toBe(0);
  });

  it("names the config file and line of a value without a unit", () => {
    const path = file("LOG_LEVEL: debug\npoll_interval: 120\n");
    expect(problemsOf(() => readDaemonConfig(BASE, { configFile: path }))).toEqual([
      `${path}:2 POLL_INTERVAL`,
    ]);
    // Set in the environment, the same value is the environment's problem.
    expect(
      problemsOf(() => readDaemonConfig({ ...BASE, POLL_INTERVAL: "120" }, { configFile: path })),
    ).toEqual(["POLL_INTERVAL"]);
  });

  it("lets the environment win over the file, and the file over the command's defaults", () => {
    const path = file("poll_interval: 10s\nHTTP_PORT: 9000\nLOG_LEVEL: debug\n");
    const config = readDaemonConfig(
      { ...BASE, LOG_LEVEL: "warn" },
      {
        configFile: path,
        defaults: { POLL_INTERVAL: "2s", HTTP_PORT: "off", SHUTDOWN_TIMEOUT: "3s" },
      },
    );
    expect(config.detector.intervalMs).toBe(10_000);
    expect(config.http?.port).toBe(9000);
    expect(config.log.level).toBe("warn");
    expect(config.shutdownTimeoutMs).toBe(3000);
    const { sources } = effectiveEnv({ LOG_LEVEL: "warn" }, { configFile: path });
    expect(sources).toMatchObject({ LOG_LEVEL: "env", POLL_INTERVAL: "file", HTTP_PORT: "file" });
  });

  it("reads FLIGHTWATCH_CONFIG when no file is named", () => {
    const path = file("POLL_INTERVAL: 5s\n");
    expect(readDaemonConfig({ ...BASE, FLIGHTWATCH_CONFIG: path }).detector.intervalMs).toBe(5000);
  });

  it("documents every variable it reads", () => {
    const names = CONFIG_VARIABLES.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      "FLIGHT_API_BASE_URL",
      "REDIS_URL",
      "HTTP_PORT",
      "LOG_LEVEL",
      "SMTP_URL",
      "POLL_INTERVAL",
    ]) {
      expect(names).toContain(name);
    }
    expect(
      CONFIG_VARIABLES.filter((v) => v.exposure !== "plain")
        .map((v) => v.name)
        .sort(),
    ).toEqual(
      [
        "FLIGHT_API_APP_KEY",
        "FLIGHT_API_BASE_URL",
        "FLIGHT_API_TOKEN",
        "REDIS_URL",
        "SMTP_URL",
        "DASHBOARD_TOKEN",
        "METRICS_TOKEN",
        "SUBSCRIPTION_SECRET",
        "SLACK_API_URL",
      ].sort(),
    );
  });
});

describe("readConfigFile", () => {
  it("reads scalars by variable name, in any case", () => {
    expect(
      readConfigFile(file("redis_url: redis://r:6379\nHTTP_PORT: 8081\nDASHBOARD: true\n")),
    ).toEqual({
      REDIS_URL: "redis://r:6379",
      HTTP_PORT: "8081",
      DASHBOARD: "true",
    });
    expect(readConfigFile(file("# nothing yet\n"))).toEqual({});
  });

  it("names the file and line of every unknown key, with a suggestion", () => {
    const path = file("POLL_INTERVAL: 5s\nPOL_INTERVAL: 5s\nHTTP_PROT: 1\nnonsense_here: 1\n");
    try {
      readConfigFile(path);
      expect.unreachable();
    } catch (err) {
      const problems = (err as ConfigProblemsError).problems.map((p) => p.message);
      expect(problems).toEqual([
        `${path}:2 POL_INTERVAL: is not a flightwatch setting; did you mean \`POLL_INTERVAL\`?`,
        `${path}:3 HTTP_PROT: is not a flightwatch setting; did you mean \`HTTP_PORT\`?`,
        `${path}:4 nonsense_here: is not a flightwatch setting; \`flightwatch config\` lists them all`,
      ]);
    }
  });

  it("refuses lists, maps and nulls as values, bad YAML and a missing file", () => {
    expect(problemsOf(() => readConfigFile(file("HTTP_PORT: [1, 2]\nLOG_LEVEL:\n")))).toHaveLength(
      2,
    );
    expect(problemsOf(() => readConfigFile(file("HTTP_PORT: : :\n  - x")))[0]).toMatch(
      /flightwatch\.yaml:\d/,
    );
    expect(problemsOf(() => readConfigFile(file("- a\n- b\n")))[0]).toMatch(/flightwatch\.yaml$/);
    expect(problemsOf(() => readConfigFile("/nonexistent/flightwatch.yaml"))).toEqual([
      "/nonexistent/flightwatch.yaml",
    ]);
  });
});
