/**
 * The Dockerfile, checked without a Docker engine: its shape (Node 24 stages, non-root
 * user, HEALTHCHECK, `run` as the command, production dependencies only), then a
 * replay of the build in temporary directories — the build context as .dockerignore
 * filters it, the stages' COPY and RUN lines (npm ci, the TypeScript build, the
 * production install) — and the image's own ENTRYPOINT + CMD started as its USER
 * would run: `--help`, then a real start against the image's `simulate` command (as
 * the compose demo profile runs it), real Redis, /healthz, the HEALTHCHECK command
 * itself, /readyz, and SIGTERM.
 *
 * This machine runs Node.js 20, the image Node.js 24: what differs between the two
 * engines is not covered here. npm uses this machine's cache (with --prefer-offline),
 * as the Dockerfile's cache mount does in a real build; the whole file takes about a
 * minute, most of it `npm ci` and `tsc`.
 */
import { type ChildProcessByStdio, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { parseEnv } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/daemon/private-redis.js";
import { TEST_REDIS_URL, type TestRedis, testRedis } from "../support/redis.js";
import { contextFiles } from "./build-context.js";
import { DockerIgnore } from "./docker-ignore.js";
import {
  envPairs,
  instructionsOf,
  lastOf,
  parseDockerfile,
  type Stage,
} from "./dockerfile-parser.js";
import {
  type ContainerProcess,
  containerProcess,
  hostPath,
  imageCommand,
  type ReplayedStage,
  replayImage,
} from "./image-replay.js";

const ROOT = new URL("../..", import.meta.url).pathname;
const dockerfile = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
const ignore = new DockerIgnore(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};
const finalStage = (): Stage => dockerfile.stages.at(-1)!;

/** The RUN lines of a stage, without their --mount options. */
const runLines = (stage: Stage): string[] => instructionsOf(stage, "RUN").map((i) => i.args);

describe("Dockerfile shape", () => {
  it("builds in one stage and runs in another, both on Node.js 24 pinned to a minor release", () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of dockerfile.stages) {
      expect(stage.base, `FROM on line ${stage.line}`).toMatch(/^node:24\.\d+(?:-[\w.-]+)?$/);
    }
    // The runtime stage takes the compiled code from the build stage, not the context.
    const fromBuild = instructionsOf(finalStage(), "COPY").filter((c) => c.flags.from);
    expect(fromBuild.map((c) => c.args)).toContainEqual(expect.stringMatching(/dist/));
  });

  it("runs `flightwatch run` as a non-root user, stops with SIGTERM and has a HEALTHCHECK", () => {
    const stage = finalStage();
    const user = lastOf(stage, "USER")?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(?:root|0)(?::|$)/);
    // The installs run as root (the base image's user), so the files they write are not
    // the runtime user's to change; a USER before them would also fail to write /app.
    let current = "root";
    for (const instruction of stage.instructions) {
      if (instruction.keyword === "USER") current = instruction.args;
      if (instruction.keyword === "RUN")
        expect(current, `RUN on line ${instruction.line}`).toBe("root");
    }
    expect(lastOf(stage, "ENTRYPOINT")?.args).toBe(
      '["node", "--max-semi-space-size=32", "bin/flightwatch.js"]',
    );
    expect(lastOf(stage, "CMD")?.args).toBe('["run"]');
    expect(lastOf(stage, "STOPSIGNAL")?.args).toBe("SIGTERM");
    expect(lastOf(stage, "HEALTHCHECK")?.args).toMatch(/^CMD /);
    expect(lastOf(stage, "EXPOSE")?.args).toBe("8080");
    expect(lastOf(stage, "ENV")?.args).toMatch(/\bHTTP_PORT=8080\b/);
    // flightwatch listens on loopback by default; a container's probes come from outside.
    const env = Object.fromEntries(instructionsOf(stage, "ENV").flatMap((i) => envPairs(i)));
    expect(env.HTTP_HOST).toBe("0.0.0.0");
  });

  it("installs production dependencies only in the runtime stage, and builds nothing there", () => {
    const runs = runLines(finalStage());
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^npm ci\b/);
    expect(runs[0]).toMatch(/--omit=dev\b/);
    // typescript is "devOptional" in the lock: --omit=dev alone keeps it.
    expect(runs[0]).toMatch(/--omit=optional\b/);
    expect(runs[0]).toMatch(/--ignore-scripts\b/);
  });

  it("keeps node_modules, .git, build output, test files and .env files out of the build context", () => {
    for (const path of [
      "node_modules/bullmq/package.json",
      ".git/HEAD",
      "dist/cli/main.js",
      "coverage/index.html",
      "test/deploy/dockerfile-replay.test.ts",
      "bench/run.ts",
      ".env",
      "rules/.env",
      "src/.env.local",
      "npm-debug.log",
      "src/node_modules/x/index.js",
    ]) {
      expect(ignore.ignores(path), path).toBe(true);
    }
    for (const path of [
      "package.json",
      "package-lock.json",
      "src/cli/main.ts",
      "bin/flightwatch.js",
    ]) {
      expect(ignore.ignores(path), path).toBe(false);
    }
    const files = contextFiles(ROOT, ignore);
    expect(files).toContain("src/cli/main.ts");
    expect(files.filter((f) => /(?:^|\/)(?:node_modules|\.git|dist)\//.test(f))).toEqual([]);
  });
});

describe("Dockerfile replayed", () => {
  let workDir: string;
  let image: ReplayedStage;
  let db: TestRedis;
  let removingBuild: Promise<unknown> | undefined;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), "fw-image-"));
    const npmCache = execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim();
    const stages = await replayImage({
      dockerfile,
      contextDir: ROOT,
      context: contextFiles(ROOT, ignore),
      workDir,
      runEnv: {
        npm_config_cache: npmCache,
        npm_config_prefer_offline: "true",
        npm_config_update_notifier: "false",
      },
    });
    image = stages.at(-1)!;
    // The build stages (their node_modules are ~240 MB) are removed while the tests run.
    removingBuild = Promise.all(
      stages.slice(0, -1).map((stage) => rm(stage.root, { recursive: true, force: true })),
    );
    db = await testRedis("deploy");
  }, 180_000);

  afterAll(async () => {
    await db?.cleanup();
    await removingBuild;
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 60_000);

  it("has no development dependency in the runtime stage, and no sources", () => {
    const modules = hostPath(image, "node_modules");
    const installed = new Set(readdirSync(modules));
    for (const scoped of [...installed].filter((name) => name.startsWith("@"))) {
      for (const name of readdirSync(join(modules, scoped))) installed.add(`${scoped}/${name}`);
    }
    // Every development dependency that only development needs: one a runtime package
    // declares as its own dependency (@slack/webhook declares @types/node) is installed
    // for it, as npm ci --omit=dev must.
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.keys(pkg.devDependencies).filter(
      (name) => lock.packages[`node_modules/${name}`]?.dev === true,
    );
    expect(devOnly).toContain("vitest");
    for (const name of ["vitest", "typescript", "@biomejs/biome", "tsx", ...devOnly]) {
      expect(installed.has(name), `${name} in the runtime image`).toBe(false);
    }
    expect(installed.has("bullmq")).toBe(true);
    const top = readdirSync(hostPath(image, "."));
    expect(top.sort()).toEqual(
      ["bin", "dist", "node_modules", "package-lock.json", "package.json", "rules"].sort(),
    );
  });

  it("answers --help with exit 0 and lists the run command", async () => {
    const help = await runToEnd(containerProcess(image, imageCommand(image, ["--help"])));
    expect(help.code, help.output).toBe(0);
    expect(help.output).toMatch(/^\s+run\b/m);
  });

  it("starts with its CMD against the image's simulator: healthy, HEALTHCHECK passes, ready, dashboard, SIGTERM exits 0", async () => {
    const sim = start(
      containerProcess(
        image,
        imageCommand(image, ["simulate", "--host", "127.0.0.1", "--port", "0", "--no-auth"]),
      ),
    );
    try {
      const baseUrl = (await waitFor(
        () => /FLIGHT_API_BASE_URL=(\S+)/.exec(sim.stdout())?.[1],
        15_000,
        sim,
      ))!;
      const port = await freePort();
      const env = {
        ...demoEnv(),
        FLIGHT_API_BASE_URL: baseUrl,
        REDIS_URL: TEST_REDIS_URL,
        FLIGHTWATCH_PREFIX: db.prefix,
        HTTP_PORT: String(port),
        POLL_INTERVAL: "1s",
        // Bull Board and Hono are loaded only for the dashboard: they must be in the image too.
        DASHBOARD: "true",
        DASHBOARD_TOKEN,
      };
      const daemon = start(containerProcess(image, imageCommand(image), env));
      try {
        await waitFor(async () => (await status(port, "/healthz")) === 200, 20_000, daemon);
        const check = await runToEnd(containerProcess(image, image.healthcheck!.command, env));
        expect(check.code, check.output).toBe(0);
        await waitFor(async () => (await status(port, "/readyz")) === 200, 30_000, daemon);
        expect(await status(port, "/queues/")).toBe(401);
        expect(await status(port, "/queues/", "127.0.0.1", DASHBOARD_TOKEN)).toBe(200);
        // The image's HTTP_HOST: every interface, not loopback alone.
        if (EXTERNAL !== undefined) expect(await status(port, "/healthz", EXTERNAL)).toBe(200);
        daemon.child.kill("SIGTERM");
        const code = await within(daemon.exited, 20_000).catch((err: Error) => {
          throw new Error(`${err.message} after SIGTERM:\n${tail(daemon)}`);
        });
        expect(code, tail(daemon)).toBe(0);
      } finally {
        daemon.child.kill("SIGKILL");
      }
      // Logs are JSON lines on stdout.
      for (const line of daemon
        .stdout()
        .split("\n")
        .filter((l) => l.trim() !== "")) {
        expect(() => JSON.parse(line), line).not.toThrow();
      }
      // The same check against a stopped daemon fails: it is not a check that cannot fail.
      const stopped = await runToEnd(containerProcess(image, image.healthcheck!.command, env));
      expect(stopped.code).not.toBe(0);
    } finally {
      sim.child.kill("SIGTERM");
      await within(sim.exited, 10_000).catch(() => sim.child.kill("SIGKILL"));
    }
  }, 90_000);
});

/** The example rules' ${…} values, as the compose file gives them (rules/demo.env). */
function demoEnv(): Record<string, string> {
  const parsed = parseEnv(readFileSync(join(ROOT, "rules/demo.env"), "utf8"));
  return Object.fromEntries(
    Object.entries(parsed).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/** The end of a process's output, for failure messages. */
const tail = (proc: Started): string =>
  `${proc.stdout().slice(-3000)}\n--- stderr ---\n${proc.stderr().slice(-2000)}`;

interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | string>;
}

function start(proc: ContainerProcess): Started {
  const child = spawn(proc.file, proc.args, {
    cwd: proc.cwd,
    env: proc.env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(proc.uid !== undefined ? { uid: proc.uid, gid: proc.gid } : {}),
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => {
    out += String(c);
  });
  child.stderr.on("data", (c) => {
    err += String(c);
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function runToEnd(
  proc: ContainerProcess,
): Promise<{ code: number | string; output: string }> {
  const started = start(proc);
  const code = await within(started.exited, 30_000);
  return { code, output: started.stdout() + started.stderr() };
}

/** An IPv4 address of this machine other than loopback, if it has one. */
const EXTERNAL = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;

const DASHBOARD_TOKEN = "image-dashboard-token-3f9a";

async function status(
  port: number,
  path: string,
  host = "127.0.0.1",
  token?: string,
): Promise<number | undefined> {
  try {
    const res = await fetch(`http://${host}:${port}${path}`, {
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      signal: AbortSignal.timeout(2000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return undefined;
  }
}

/** Polls `probe` until it gives a truthy value; fails early if the process ends. */
async function waitFor<T>(
  probe: () => T | Promise<T>,
  timeoutMs: number,
  proc: Started,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let ended: number | string | undefined;
  void proc.exited.then((code) => {
    ended = code;
  });
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (ended !== undefined) {
      throw new Error(`the process ended (${ended}):\n${proc.stdout()}\n${proc.stderr()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
