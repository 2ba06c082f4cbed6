/**
 * The replay's own semantics on small Dockerfiles, without npm: COPY of files,
 * directories, wildcards and other stages; ENV; what it refuses to run.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contextFiles } from "./build-context.js";
import { DockerIgnore } from "./docker-ignore.js";
import { parseDockerfile } from "./dockerfile-parser.js";
import {
  containerProcess,
  hostPath,
  imageCommand,
  REPLAY_UID,
  type ReplayedStage,
  replayImage,
} from "./image-replay.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "fw-replay-"));
  for (const file of ["a.txt", "b.txt", "pkg/one.js", "pkg/sub/two.js", "pkg/.env"]) {
    mkdirSync(dirname(join(dir, "ctx", file)), { recursive: true });
    writeFileSync(join(dir, "ctx", file), file);
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function replay(text: string, ignoreText = "**/.env"): Promise<ReplayedStage[]> {
  const ctx = join(dir, "ctx");
  return replayImage({
    dockerfile: parseDockerfile(text),
    contextDir: ctx,
    context: contextFiles(ctx, new DockerIgnore(ignoreText)),
    workDir: join(dir, "work"),
  });
}

const read = (stage: ReplayedStage, path: string) => readFileSync(hostPath(stage, path), "utf8");

describe("replayImage", () => {
  it("copies files, directory contents and wildcards as COPY does, without ignored files", async () => {
    const [stage] = await replay(
      "FROM node:24.1-slim\nWORKDIR /app\nCOPY a.txt ./\nCOPY b.txt renamed.txt\nCOPY pkg ./lib\nCOPY *.txt all/\n",
    );
    expect(read(stage!, "a.txt")).toBe("a.txt");
    expect(read(stage!, "renamed.txt")).toBe("b.txt");
    expect(read(stage!, "lib/one.js")).toBe("pkg/one.js");
    expect(read(stage!, "lib/sub/two.js")).toBe("pkg/sub/two.js");
    expect(existsSync(hostPath(stage!, "lib/.env"))).toBe(false);
    expect(read(stage!, "/app/all/b.txt")).toBe("b.txt");
  });

  it("copies from an earlier stage by name, and keeps ENV, USER, ENTRYPOINT, CMD", async () => {
    const [, last] = await replay(
      'FROM node:24.1-slim AS one\nWORKDIR /w\nCOPY pkg ./out\nFROM node:24.1-slim\nWORKDIR /app\nENV X=1 Y="$X 2"\nCOPY --from=one /w/out ./got\nUSER node\nENTRYPOINT ["node", "x.js"]\nCMD ["run"]\n',
    );
    expect(read(last!, "got/sub/two.js")).toBe("pkg/sub/two.js");
    expect(last!.env).toEqual({ X: "1", Y: "1 2" });
    expect(imageCommand(last!)).toEqual({ exec: ["node", "x.js", "run"] });
    expect(imageCommand(last!, ["--help"])).toEqual({ exec: ["node", "x.js", "--help"] });
    const proc = containerProcess(last!, imageCommand(last!));
    expect(proc.file).toBe(process.execPath);
    expect(proc.cwd).toBe(hostPath(last!, "/app"));
    expect(proc.env.X).toBe("1");
    expect(proc.env.VITEST).toBeUndefined();
    if (process.getuid?.() === 0) expect(proc.uid).toBe(REPLAY_UID);
  });

  it("fails naming the line when a COPY source is missing or left out by .dockerignore", async () => {
    await expect(replay("FROM x\nWORKDIR /app\n\nCOPY pkg/.env ./\n")).rejects.toThrow(
      /line 4: COPY pkg\/.env: not in the build context \(missing, or left out by .dockerignore\)/,
    );
    await expect(replay("FROM x\nCOPY a.txt ./\n", "*.txt")).rejects.toThrow(/line 2: COPY a.txt/);
  });

  it("refuses RUN commands whose effect it cannot reproduce, before running anything", async () => {
    await expect(replay("FROM x\nRUN apt-get update && apt-get install -y curl\n")).rejects.toThrow(
      /line 2: the replay only runs `npm ci …` and `npm run …`, not `apt-get update`/,
    );
    await expect(
      replay("FROM x\nRUN npm ci && rm -rf /usr/local/lib/node_modules/npm\n"),
    ).rejects.toThrow(/not `rm -rf/);
    await expect(replay("FROM x\nRUN npm cache clean --force\n")).rejects.toThrow(/not `npm cache/);
  });

  it("refuses instructions it does not know", async () => {
    await expect(replay("FROM x\nADD https://example.com/x.tgz /x\n")).rejects.toThrow(
      /line 2: the replay does not know ADD/,
    );
  });
});
