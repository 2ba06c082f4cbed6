/**
 * The mutation runs' reporter (test/mutation/load-failure-reporter.ts): a test file
 * that failed to load is one failed test, so Stryker counts the mutant that broke it
 * as killed; a file that loaded is left as it was.
 */

import type { RunnerTestFile } from "vitest";
import { describe, expect, it } from "vitest";
import type { Vitest } from "vitest/node";
import LoadFailureAsFailedTest, { markUnloaded } from "./load-failure-reporter.js";

function file(state: "pass" | "fail", tasks: unknown[] = []): RunnerTestFile {
  return {
    type: "suite",
    id: "f1",
    name: "test/x.test.ts",
    filepath: "/repo/test/x.test.ts",
    mode: "run",
    tasks,
    result: { state, errors: state === "fail" ? [{ message: "boom at import" }] : [] },
    meta: {},
  } as unknown as RunnerTestFile;
}

describe("a test file that failed to load", () => {
  it("gets one failed test carrying its load error, named after the file", () => {
    const f = file("fail");
    expect(markUnloaded(f)).toBe(true);
    expect(f.tasks).toHaveLength(1);
    const [t] = f.tasks;
    expect(t).toMatchObject({
      type: "test",
      mode: "run",
      file: f,
      result: { state: "fail", errors: [{ message: "boom at import" }] },
    });
  });

  it("is found among the run's modules at its end", () => {
    const f = file("fail");
    const reporter = new LoadFailureAsFailedTest();
    reporter.onInit({ state: { getFiles: () => [f] } } as unknown as Pick<Vitest, "state">);
    reporter.onTestRunEnd();
    expect(f.tasks).toHaveLength(1);
  });
});

describe("a test file that loaded", () => {
  it("is left as it was, whether its tests passed or failed", () => {
    const passed = file("pass");
    const failedTests = file("fail", [{ type: "test", name: "a" }]);
    expect(markUnloaded(passed)).toBe(false);
    expect(markUnloaded(failedTests)).toBe(false);
    expect(passed.tasks).toHaveLength(0);
    expect(failedTests.tasks).toHaveLength(1);
  });
});
