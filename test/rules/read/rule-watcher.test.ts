import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ErrorCode, type RuleProblem } from "../../../src/errors.js";
import { loadRuleDir } from "../../../src/rules/read/rule-loader.js";
import { RuleWatcher } from "../../../src/rules/read/rule-watcher.js";
import type { Rule } from "../../../src/rules/rule.js";

const ZONE = "Europe/Amsterdam";

const ruleFile = (...ids: string[]) =>
  `rules:\n${ids.map((id) => `  - id: ${id}\n    channels: [{ type: console }]\n`).join("")}`;

describe("RuleWatcher", () => {
  let dir: string;
  let problems: RuleProblem[][];
  let reloads: number;
  let watcher: RuleWatcher<string[]> | undefined;

  const start = (checkEveryMs = 0, debounceMs = 20) =>
    RuleWatcher.start({
      dir,
      load: (d) => loadRuleDir(d, { vars: { values: {} }, zone: ZONE }),
      build: (rules: Rule[]) => rules.map((r) => r.id),
      onReload: () => {
        reloads++;
      },
      onProblems: (p) => {
        problems.push([...p]);
      },
      checkEveryMs,
      debounceMs,
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "fw-rule-watch-"));
    problems = [];
    reloads = 0;
    watcher = undefined;
  });
  afterEach(async () => {
    await watcher?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses to start on a broken set: there is no good set to keep", async () => {
    await writeFile(join(dir, "a.yaml"), "rules:\n  - id: a\n    chanels: []\n");
    await expect(start()).rejects.toMatchObject({ code: ErrorCode.RULE_INVALID });
  });

  it("takes a good edit, and keeps the last good set through a broken one", async () => {
    await writeFile(join(dir, "a.yaml"), ruleFile("first"));
    // Only the explicit reloads below: a debounced one from fs.watch could land between two
    // writes on a busy machine and see a set the test means to be half-written.
    watcher = await start(0, 600_000);
    expect(watcher.current).toEqual(["first"]);
    expect(reloads).toBe(1);

    await writeFile(join(dir, "a.yaml"), ruleFile("first", "second"));
    expect(await watcher.reload()).toBe(true);
    expect(watcher.current).toEqual(["first", "second"]);

    await writeFile(join(dir, "a.yaml"), "rules:\n  - id: first\n    changes: [gat]\n");
    expect(await watcher.reload()).toBe(false);
    expect(watcher.current).toEqual(["first", "second"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.some((p) => p.file.endsWith("a.yaml") && p.line === 3)).toBe(true);

    // A second file that breaks the set (a duplicate id) is refused too.
    await writeFile(join(dir, "a.yaml"), ruleFile("first"));
    await writeFile(join(dir, "b.yaml"), ruleFile("first"));
    expect(await watcher.reload()).toBe(false);
    expect(watcher.current).toEqual(["first", "second"]);

    await unlink(join(dir, "b.yaml"));
    expect(await watcher.reload()).toBe(true);
    expect(watcher.current).toEqual(["first"]);
  });

  it("notices a change on disk by itself", async () => {
    await writeFile(join(dir, "a.yaml"), ruleFile("first"));
    watcher = await start(100);
    await writeFile(join(dir, "b.yml"), ruleFile("added"));
    await waitFor(() => watcher?.current.includes("added") === true);
    expect(watcher.current).toEqual(["first", "added"]);
    await writeFile(join(dir, "b.yml"), "rules: [");
    await waitFor(() => problems.length > 0);
    expect(watcher.current).toEqual(["first", "added"]);
  });

  it("notices changes with fs.watch alone (no periodic check)", async () => {
    await writeFile(join(dir, "a.yaml"), ruleFile("first"));
    watcher = await start(0);
    await writeFile(join(dir, "a.yaml"), ruleFile("renamed"));
    await waitFor(() => watcher?.current.includes("renamed") === true);
  });

  it("runs reloads asked for during another one after it, never two at once", async () => {
    await writeFile(join(dir, "a.yaml"), ruleFile("first"));
    let running = 0;
    let most = 0;
    let loads = 0;
    watcher = await RuleWatcher.start({
      dir,
      load: async (d) => {
        running++;
        loads++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        const load = await loadRuleDir(d, { vars: { values: {} }, zone: ZONE });
        running--;
        return load;
      },
      build: (rules: Rule[]) => rules.map((r) => r.id),
      checkEveryMs: 0,
      debounceMs: 10_000,
    });
    await writeFile(join(dir, "a.yaml"), ruleFile("next"));
    const results = await Promise.all([watcher.reload(), watcher.reload(), watcher.reload()]);
    expect(results).toEqual([true, true, true]);
    expect(watcher.current).toEqual(["next"]);
    expect(most).toBe(1);
    // The first load at start, one reload, and one more for the requests made during it.
    expect(loads).toBe(3);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
