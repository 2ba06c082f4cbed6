/**
 * docker-compose.yml, checked without a Docker engine: parsed with `yaml`, held to a
 * schema of the parts we rely on, and its values checked against what flightwatch and
 * the Dockerfile actually read — every variable known to the config module, the
 * demo's configuration valid, the example rules loadable with the values it gives
 * them, the simulator's command and health check answering as the compose file
 * expects. `docker compose config` also runs when a Compose plugin is installed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { API_BASE_PATH } from "../../src/api/contract.js";
import { CONFIG_VARIABLE_NAMES } from "../../src/config/config-variables.js";
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, readDaemonConfig } from "../../src/config/daemon-config.js";
import { readRuleVariables } from "../../src/config/rule-variables.js";
import { loadRuleDir } from "../../src/rules/read/rule-loader.js";
import { parseDuration } from "../../src/time/duration.js";
import { spawnCli } from "../support/cli-process.js";
import { interpolate } from "./compose-interpolate.js";
import {
  type ComposeService,
  composeFileSchema,
  environmentOf,
  wordsOf,
} from "./compose-schema.js";
import { envPairs, instructionsOf, lastOf, parseDockerfile } from "./dockerfile-parser.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const compose = composeFileSchema.parse(
  parse(readFileSync(join(ROOT, "docker-compose.yml"), "utf8")),
);
const image = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8")).stages.at(-1)!;
const service = (name: string): ComposeService => compose.services[name]!;

/** A service's environment as the container gets it when no variable is set in the shell or .env. */
function containerEnv(name: string): Record<string, string> {
  const fromFiles: Record<string, string> = {};
  const files = service(name).env_file ?? [];
  for (const entry of Array.isArray(files) ? files : [files]) {
    const path = typeof entry === "string" ? entry : entry.path;
    Object.assign(fromFiles, parseEnv(readFileSync(join(ROOT, path), "utf8")));
  }
  const env = Object.fromEntries(
    Object.entries(environmentOf(service(name))).map(([k, v]) => [k, interpolate(v, {})]),
  );
  return { ...fromFiles, ...env };
}

/** The value after `--flag` in a command. */
const flagValue = (words: string[], flag: string): string | undefined =>
  words[words.indexOf(flag) + 1];

describe("docker-compose.yml", () => {
  it("runs redis, flightwatch and mailpit by default, and the simulator only in the demo profile", () => {
    for (const name of ["redis", "flightwatch", "mailpit"]) {
      expect(service(name).profiles, name).toBeUndefined();
    }
    expect(service("simulator").profiles).toEqual(["demo"]);
  });

  it("runs Redis with AOF persistence, noeviction, a named data volume and a health check", () => {
    const words = wordsOf(service("redis").command);
    expect(words[0]).toBe("redis-server");
    expect(flagValue(words, "--appendonly")).toBe("yes");
    expect(flagValue(words, "--maxmemory-policy")).toBe("noeviction");
    const data = service("redis").volumes?.find((v) => v.split(":")[1] === "/data");
    expect(data, "a volume at /data").toBeDefined();
    const volume = data!.split(":")[0]!;
    expect(volume).not.toMatch(/^[./]/); // named, not a bind mount
    expect(compose.volumes ?? {}).toHaveProperty(volume);
    expect(wordsOf(service("redis").healthcheck?.test)).toEqual(["CMD", "redis-cli", "ping"]);
  });

  it("starts flightwatch once Redis is healthy (and the simulator, when the demo runs it)", () => {
    const deps = service("flightwatch").depends_on;
    expect(deps).not.toBeInstanceOf(Array);
    const byName = deps as Record<string, { condition: string; required?: boolean }>;
    expect(byName.redis?.condition).toBe("service_healthy");
    expect(byName.simulator).toMatchObject({ condition: "service_healthy", required: false });
    expect(service("simulator").healthcheck).toBeDefined();
  });

  it("gives flightwatch only variables flightwatch knows", () => {
    const names = Object.keys(environmentOf(service("flightwatch")));
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !CONFIG_VARIABLE_NAMES.has(n))).toEqual([]);
  });

  it("gives flightwatch a configuration the daemon accepts, and values that load the example rules", async () => {
    const env = containerEnv("flightwatch");
    const config = readDaemonConfig(env);
    expect(config.role).toBe("all");
    expect(config.redis.url).toBe("redis://redis:6379");
    expect(config.email).toBeDefined();
    expect(config.http?.port).toBe(8080);
    expect(config.shutdownTimeoutMs).toBe(DEFAULT_SHUTDOWN_TIMEOUT_MS);
    // No --vars-file in the container: the example rules' RULE_… values come from the
    // environment, as the compose file passes them.
    const vars = readRuleVariables(env);
    const load = await loadRuleDir(join(ROOT, "rules"), { vars, zone: config.zone });
    expect(load.problems).toEqual([]);
    expect(load.rules.length).toBeGreaterThan(0);
  });

  it("wires flightwatch to the image's port, the rules mount, Mailpit and the demo simulator", () => {
    const fw = service("flightwatch");
    const env = containerEnv("flightwatch");
    expect(fw.build).toBe(".");
    expect(service("simulator").image).toBe(fw.image);
    expect(service("simulator").build).toEqual(fw.build);
    // HTTP port: the one the image exposes and checks, published on loopback only.
    expect(env.HTTP_PORT).toBe(lastOf(image, "EXPOSE")?.args);
    expect(fw.ports).toContain(`127.0.0.1:8080:${env.HTTP_PORT}`);
    // Rules: mounted read-only where FLIGHTWATCH_RULES points, under the image's WORKDIR.
    const workdir = lastOf(image, "WORKDIR")!.args;
    expect(env.FLIGHTWATCH_RULES).toBe(`${workdir}/rules`);
    expect(fw.volumes).toContain(`./rules:${env.FLIGHTWATCH_RULES}:ro`);
    // Email: Mailpit's SMTP port; its UI published on loopback.
    expect(new URL(env.SMTP_URL!).host).toBe("mailpit:1025");
    expect(service("mailpit").ports).toContain("127.0.0.1:8025:8025");
    // The demo: the API base URL defaults to the simulator's host, port and base path.
    const sim = wordsOf(service("simulator").command);
    expect(sim[0]).toBe("simulate");
    expect(flagValue(sim, "--host")).toBe("0.0.0.0");
    expect(sim).toContain("--no-auth");
    expect(env.FLIGHT_API_BASE_URL).toBe(
      `http://simulator:${flagValue(sim, "--port")}${API_BASE_PATH}`,
    );
    for (const ports of [fw.ports, service("mailpit").ports, service("simulator").ports]) {
      for (const port of ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it("has flightwatch listen on every interface of its container, as the image does", () => {
    const imageEnv = Object.fromEntries(instructionsOf(image, "ENV").flatMap((i) => envPairs(i)));
    const env = containerEnv("flightwatch");
    expect(env.HTTP_HOST).toBe("0.0.0.0");
    expect(imageEnv.HTTP_HOST).toBe("0.0.0.0");
    expect(readDaemonConfig({ ...imageEnv, ...env }).http?.host).toBe("0.0.0.0");
    // Outside a container, the same variables without HTTP_HOST listen on loopback only.
    const { HTTP_HOST: _, ...plain } = env;
    expect(readDaemonConfig(plain).http?.host).toBe("127.0.0.1");
  });

  it("gives flightwatch longer to stop than its own graceful shutdown takes", () => {
    const fw = service("flightwatch");
    const grace = parseDuration(fw.stop_grace_period ?? "10s", "stop_grace_period");
    const shutdown = parseDuration(
      containerEnv("flightwatch").SHUTDOWN_TIMEOUT!,
      "SHUTDOWN_TIMEOUT",
    );
    expect(grace).toBeGreaterThanOrEqual(shutdown + 5_000);
    expect(fw.init).toBe(true);
  });

  it("checks the simulator's health with a request the simulator, started as compose starts it, answers", async () => {
    const sim = service("simulator");
    const words = wordsOf(sim.command);
    const port = flagValue(words, "--port")!;
    const test = wordsOf(sim.healthcheck?.test);
    expect(test.slice(0, 3)).toEqual(["CMD", "node", "-e"]);
    const script = test[3]!;
    expect(script).toContain(`http://127.0.0.1:${port}${API_BASE_PATH}/`);
    // The same command on a free port (and on loopback: nothing else needs to reach it).
    const args = words.map((w, i) =>
      words[i - 1] === "--port" ? "0" : w === "0.0.0.0" ? "127.0.0.1" : w,
    );
    const proc = spawnCli(args, { AIRPORT_TIMEZONE: containerEnv("simulator").AIRPORT_TIMEZONE! });
    try {
      const base = await until(
        () => /FLIGHT_API_BASE_URL=(\S+)/.exec(proc.stdout())?.[1],
        proc.stderr,
      );
      const actual = new URL(base).port;
      const check = (p: string) =>
        spawnSync(process.execPath, ["-e", script.replace(`127.0.0.1:${port}`, `127.0.0.1:${p}`)], {
          timeout: 10_000,
        }).status;
      expect(check(actual)).toBe(0);
      proc.child.kill("SIGTERM");
      await proc.exited;
      expect(check(actual)).toBe(1);
    } finally {
      proc.child.kill("SIGKILL");
    }
  });

  it.skipIf(!composeAvailable())(
    "passes `docker compose config`, with and without the demo profile",
    () => {
      for (const args of [[], ["--profile", "demo"]]) {
        execFileSync(
          "docker",
          ["compose", "-f", join(ROOT, "docker-compose.yml"), ...args, "config", "--quiet"],
          {
            stdio: "pipe",
          },
        );
      }
    },
  );
});

/** Whether a Docker Compose v2 plugin is installed (the config check needs no engine). */
function composeAvailable(): boolean {
  return spawnSync("docker", ["compose", "version"], { stdio: "ignore" }).status === 0;
}

async function until<T>(probe: () => T | undefined, stderr: () => string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out; stderr:\n${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
