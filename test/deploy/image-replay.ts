/**
 * Replays a Dockerfile without a Docker engine: each stage gets a directory standing
 * for its file system, COPY copies from the build context (as .dockerignore filters
 * it) or from an earlier stage, RUN runs its command on this machine in the stage's
 * WORKDIR with the stage's ENV, and the image's ENTRYPOINT, CMD, USER and HEALTHCHECK
 * are kept so a test can start the container's process.
 *
 * The base image is not there: only what the Dockerfile adds is replayed. So RUN may
 * only use commands this machine runs the same way as the image would — npm ci and
 * npm run — and anything else fails with a message saying so, rather than running
 * (or skipping) something whose effect the replay would not reproduce.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import {
  type CommandForm,
  commandForm,
  type Dockerfile,
  envPairs,
  healthcheckOf,
  type Instruction,
  shellWords,
} from "./dockerfile-parser.js";

/** What replaying needs. */
export interface ReplayOptions {
  dockerfile: Dockerfile;
  /** The directory the build context comes from. */
  contextDir: string;
  /** The context's files, relative and slash-separated (see contextFiles). */
  context: readonly string[];
  /** A fresh directory; each stage's file system is made in a directory of its own below it. */
  workDir: string;
  /** Added to every RUN's environment (npm's cache and offline settings, for speed). */
  runEnv?: Record<string, string>;
  /** Longest time one RUN may take (default 150 s). */
  runTimeoutMs?: number;
  /** Progress, one line per instruction replayed. */
  log?: (line: string) => void;
}

/** A replayed stage: where its file system is and what its image declares. */
export interface ReplayedStage {
  base: string;
  name?: string;
  /** Host directory standing for the stage's `/`. */
  root: string;
  /** WORKDIR at the end of the stage (an image path). */
  workdir: string;
  /** ENV at the end of the stage. */
  env: Record<string, string>;
  user?: string;
  entrypoint?: CommandForm;
  cmd?: CommandForm;
  healthcheck?: { options: Record<string, string>; command: CommandForm };
  exposed: string[];
  stopSignal?: string;
  /** The RUN commands replayed, in order. */
  runs: string[];
}

/** RUN commands the replay reproduces faithfully: installs from the lock file and npm scripts. */
const REPLAYABLE_RUN = /^npm (?:ci|run [\w:-]+)(?: --?[\w-]+(?:=\S+)?)*$/;

/**
 * Replays the stages as BuildKit builds them: concurrently, a `COPY --from` waiting
 * for the stage it copies from. Throws naming the Dockerfile line of the first stage
 * (in file order) that failed, once every stage has ended.
 */
export async function replayImage(options: ReplayOptions): Promise<ReplayedStage[]> {
  mkdirSync(options.workDir, { recursive: true });
  // The container's process runs as another user and must be able to reach its files.
  chmodSync(options.workDir, 0o755);
  const stages: ReplayedStage[] = options.dockerfile.stages.map((stage, index) => ({
    base: stage.base,
    ...(stage.name ? { name: stage.name } : {}),
    root: join(options.workDir, `stage-${index}${stage.name ? `-${stage.name}` : ""}`),
    workdir: "/",
    env: {},
    exposed: [],
    runs: [],
  }));
  const done: Promise<void>[] = [];
  for (const [index, stage] of options.dockerfile.stages.entries()) {
    const replayed = stages[index]!;
    const earlier = { stages: stages.slice(0, index), done: done.slice(0, index) };
    done.push(
      (async () => {
        mkdirSync(replayed.root, { recursive: true });
        for (const instruction of stage.instructions) {
          options.log?.(`line ${instruction.line}: ${instruction.keyword} ${instruction.args}`);
          await apply(instruction, replayed, earlier, options);
        }
      })(),
    );
  }
  const outcomes = await Promise.allSettled(done);
  const failed = outcomes.find((o) => o.status === "rejected");
  if (failed) throw failed.reason;
  return stages;
}

/** The stages before the one being replayed, and promises of their completion. */
interface EarlierStages {
  stages: readonly ReplayedStage[];
  done: readonly Promise<void>[];
}

async function apply(
  instruction: Instruction,
  stage: ReplayedStage,
  earlier: EarlierStages,
  options: ReplayOptions,
): Promise<void> {
  const { keyword, args } = instruction;
  switch (keyword) {
    case "WORKDIR":
      stage.workdir = posix.resolve(stage.workdir, expand(args, stage.env));
      mkdirSync(hostPath(stage, stage.workdir), { recursive: true });
      return;
    case "ENV":
      for (const [name, value] of envPairs(instruction)) stage.env[name] = expand(value, stage.env);
      return;
    case "COPY":
      await copy(instruction, stage, earlier, options);
      return;
    case "RUN":
      await run(instruction, stage, options);
      return;
    case "USER":
      stage.user = args;
      return;
    case "EXPOSE":
      stage.exposed.push(...args.split(/\s+/));
      return;
    case "ENTRYPOINT":
      // (Docker also drops a CMD inherited from the base image here; we model none.)
      stage.entrypoint = commandForm(args);
      return;
    case "CMD":
      stage.cmd = commandForm(args);
      return;
    case "HEALTHCHECK": {
      const check = healthcheckOf(instruction);
      if (check) stage.healthcheck = check;
      else delete stage.healthcheck;
      return;
    }
    case "STOPSIGNAL":
      stage.stopSignal = args;
      return;
    case "LABEL":
      return;
    default:
      throw new Error(
        `Dockerfile line ${instruction.line}: the replay does not know ${keyword}; ` +
          "teach test/deploy/image-replay.ts what it does",
      );
  }
}

/** The host path standing for an image path of a replayed stage. */
export function hostPath(stage: ReplayedStage, imagePath: string): string {
  return join(stage.root, posix.resolve(stage.workdir, imagePath));
}

async function copy(
  instruction: Instruction,
  stage: ReplayedStage,
  earlier: EarlierStages,
  options: ReplayOptions,
): Promise<void> {
  const where = `Dockerfile line ${instruction.line}`;
  const form = commandForm(instruction.args);
  const words = "exec" in form ? form.exec : shellWords(form.shell);
  if (words.length < 2) throw new Error(`${where}: COPY needs a source and a destination`);
  const dest = expand(words.at(-1)!, stage.env);
  const sources = words.slice(0, -1).map((s) => expand(s, stage.env));
  const intoDir = dest.endsWith("/") || sources.length > 1 || sources.some(hasWildcard);
  const target = hostPath(stage, dest);
  if (sources.length > 1 && !dest.endsWith("/")) {
    throw new Error(`${where}: with several sources the destination must end with /`);
  }
  const from = instruction.flags.from?.at(-1);
  if (from !== undefined) {
    const index = earlier.stages.findIndex((s, i) => s.name === from || String(i) === from);
    const source = earlier.stages[index];
    if (source === undefined) throw new Error(`${where}: no earlier stage named ${from}`);
    await earlier.done[index];
    for (const path of sources) {
      const src = join(source.root, posix.resolve("/", path));
      if (!existsSync(src)) throw new Error(`${where}: ${path} does not exist in stage ${from}`);
      const to =
        statSync(src).isDirectory() || !intoDir ? target : join(target, posix.basename(path));
      mkdirSync(dirname(to), { recursive: true });
      cpSync(src, to, { recursive: true });
    }
    return;
  }
  for (const source of sources) {
    const matches = contextMatches(source, options.context);
    if (matches.length === 0) {
      throw new Error(
        `${where}: COPY ${source}: not in the build context (missing, or left out by .dockerignore)`,
      );
    }
    for (const match of matches) {
      const files = options.context.filter((f) => f === match || f.startsWith(`${match}/`));
      for (const file of files) {
        const relative = file === match ? posix.basename(file) : file.slice(match.length + 1);
        const to = file === match && !intoDir ? target : join(target, relative);
        mkdirSync(dirname(to), { recursive: true });
        cpSync(join(options.contextDir, file), to);
      }
    }
  }
}

/** Context paths (files or directories) a COPY source names, wildcards per segment. */
function contextMatches(source: string, context: readonly string[]): string[] {
  const segments = posix
    .normalize(source)
    .replace(/^\.?\/+/, "")
    .replace(/\/+$/, "")
    .split("/");
  const regexes = segments.map(
    (s) =>
      new RegExp(
        `^${s
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^/]*")
          .replace(/\?/g, "[^/]")}$`,
      ),
  );
  const found = new Set<string>();
  for (const file of context) {
    const parts = file.split("/");
    if (parts.length < segments.length) continue;
    if (regexes.every((re, i) => re.test(parts[i]!))) {
      found.add(parts.slice(0, segments.length).join("/"));
    }
  }
  return [...found].sort();
}

async function run(
  instruction: Instruction,
  stage: ReplayedStage,
  options: ReplayOptions,
): Promise<void> {
  const form = commandForm(instruction.args);
  const command = "exec" in form ? form.exec.join(" ") : form.shell;
  for (const part of command.split("&&").map((p) => p.trim())) {
    if (!REPLAYABLE_RUN.test(part)) {
      throw new Error(
        `Dockerfile line ${instruction.line}: the replay only runs \`npm ci …\` and \`npm run …\`, ` +
          `not \`${part}\`; teach test/deploy/image-replay.ts what it does in the image`,
      );
    }
  }
  const cwd = hostPath(stage, stage.workdir);
  const env = { ...hostEnv(), ...stage.env, ...options.runEnv };
  const result = await spawnCapture("sh", ["-c", command], cwd, env, options.runTimeoutMs);
  if (result.code !== 0) {
    throw new Error(
      `Dockerfile line ${instruction.line}: RUN ${command} exited ${result.code}\n${result.output.slice(-4000)}`,
    );
  }
  stage.runs.push(command);
}

/**
 * This process's environment without what the test run adds: npm's lifecycle
 * variables, vitest's, NODE_OPTIONS, and node_modules/.bin on PATH (through which a
 * RUN could use a tool the stage itself does not have). Proxy and certificate
 * settings stay: npm needs them here as the builder's network would provide them.
 */
function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(?:npm_|VITEST|NODE_OPTIONS$|NODE_ENV$|INIT_CWD$|TEST$)/i.test(name)) continue;
    env[name] = value;
  }
  env.PATH = (env.PATH ?? "")
    .split(":")
    .filter((dir) => !dir.includes("node_modules"))
    .join(":");
  return env;
}

/** `$NAME` and `${NAME}` from the stage's ENV, as the builder expands them. */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (_, a: string, b: string) => env[a ?? b] ?? "");
}

function hasWildcard(path: string): boolean {
  return /[*?[]/.test(path);
}

/** How to start the image's process: ENTRYPOINT + CMD (or `args` in place of CMD). */
export interface ContainerProcess {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}

/** Uid the container's process runs as in the replay when the image sets a non-root USER. */
export const REPLAY_UID = 65_534;

/**
 * The image's command as a host process: `node` is this Node.js (the image has its
 * own), the environment is the image's ENV plus `env` — nothing of this process's
 * own, as in a container — and when the image's USER is not root and this process
 * is, it runs as the unprivileged uid 65534, who owns none of the files, as `node`
 * owns none in the image.
 */
export function containerProcess(
  stage: ReplayedStage,
  command: CommandForm | undefined,
  env: Record<string, string> = {},
): ContainerProcess {
  const argv = command === undefined ? [] : words(command);
  const [file, ...args] = argv;
  if (file === undefined) throw new Error("the image has no command to run");
  const home = join(stage.root, "home", "container");
  mkdirSync(home, { recursive: true });
  const unprivileged =
    stage.user !== undefined && !/^(?:root|0)(?::|$)/.test(stage.user) && process.getuid?.() === 0;
  if (unprivileged) chownSync(home, REPLAY_UID, REPLAY_UID);
  return {
    file: file === "node" ? process.execPath : file,
    args,
    cwd: hostPath(stage, stage.workdir),
    env: {
      PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      ...stage.env,
      ...env,
    },
    ...(unprivileged ? { uid: REPLAY_UID, gid: REPLAY_UID } : {}),
  };
}

/** ENTRYPOINT followed by `args` (or by the image's CMD when `args` is undefined). */
export function imageCommand(stage: ReplayedStage, args?: string[]): CommandForm {
  const entry = stage.entrypoint ? words(stage.entrypoint) : [];
  const rest = args ?? (stage.cmd ? words(stage.cmd) : []);
  return { exec: [...entry, ...rest] };
}

function words(command: CommandForm): string[] {
  return "exec" in command ? command.exec : ["/bin/sh", "-c", command.shell];
}

/** Runs a command to its end, output interleaved; used by RUN. */
function spawnCapture(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 150_000,
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const add = (chunk: Buffer) => {
      output += String(chunk);
    };
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? "unknown", output });
    });
  });
}
