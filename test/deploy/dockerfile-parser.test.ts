import { describe, expect, it } from "vitest";
import {
  commandForm,
  envPairs,
  healthcheckOf,
  lastOf,
  parseDockerfile,
  shellWords,
} from "./dockerfile-parser.js";

const TEXT = `# syntax=docker/dockerfile:1
from node:24.20-slim as build
WORKDIR /app
RUN --mount=type=cache,target=/root/.npm \\
  # a comment inside a continued instruction is dropped
  npm ci \\
  --ignore-scripts

FROM node:24.20-slim
ENV A=1 B="two words" C=x\\ y
ENV LEGACY some value
COPY --from=build --chown=node /app/dist ./dist
HEALTHCHECK --interval=30s --timeout=5s CMD ["node", "-e", "process.exit(0)"]
CMD node bin/x.js
`;

describe("parseDockerfile", () => {
  const file = parseDockerfile(TEXT);

  it("splits stages at FROM, with their names, in any letter case", () => {
    expect(file.stages.map((s) => [s.base, s.name, s.line])).toEqual([
      ["node:24.20-slim", "build", 2],
      ["node:24.20-slim", undefined, 9],
    ]);
  });

  it("joins continuation lines, drops comment lines inside them, and keeps the first line number", () => {
    const run = lastOf(file.stages[0]!, "RUN")!;
    expect(run.line).toBe(4);
    expect(run.args).toMatch(/^npm ci\s+--ignore-scripts$/);
    expect(run.flags).toEqual({ mount: ["type=cache,target=/root/.npm"] });
  });

  it("splits --flags off COPY and HEALTHCHECK", () => {
    const copy = lastOf(file.stages[1]!, "COPY")!;
    expect(copy.flags).toEqual({ from: ["build"], chown: ["node"] });
    expect(copy.args).toBe("/app/dist ./dist");
    const check = healthcheckOf(lastOf(file.stages[1]!, "HEALTHCHECK")!);
    expect(check).toEqual({
      options: { interval: "30s", timeout: "5s" },
      command: { exec: ["node", "-e", "process.exit(0)"] },
    });
  });

  it("reads ENV pairs with quotes and escapes, and the legacy one-variable form", () => {
    const [pairs, legacy] = file.stages[1]!.instructions.filter((i) => i.keyword === "ENV");
    expect(envPairs(pairs!)).toEqual([
      ["A", "1"],
      ["B", "two words"],
      ["C", "x y"],
    ]);
    expect(envPairs(legacy!)).toEqual([["LEGACY", "some value"]]);
  });

  it("tells the exec form from the shell form, and takes bad JSON as shell form", () => {
    expect(commandForm('["run"]')).toEqual({ exec: ["run"] });
    expect(commandForm("node bin/x.js")).toEqual({ shell: "node bin/x.js" });
    expect(commandForm('["run", 1]')).toEqual({ shell: '["run", 1]' });
    expect(commandForm("[run]")).toEqual({ shell: "[run]" });
  });

  it("refuses an instruction before the first FROM, naming the line", () => {
    expect(() => parseDockerfile("\nWORKDIR /app\nFROM x")).toThrow(/line 2: WORKDIR before/);
  });

  it("takes HEALTHCHECK NONE as no check", () => {
    const stage = parseDockerfile("FROM x\nHEALTHCHECK NONE").stages[0]!;
    expect(healthcheckOf(lastOf(stage, "HEALTHCHECK")!)).toBeUndefined();
  });

  it("splits words as sh does", () => {
    expect(shellWords(`a "b c" 'd "e"' f\\ g ""`)).toEqual(["a", "b c", 'd "e"', "f g", ""]);
  });
});
