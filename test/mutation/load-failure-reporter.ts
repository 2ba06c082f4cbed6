/**
 * A vitest reporter for mutation runs only (vitest.mutation.config.ts): a test file
 * that fails to load becomes one failed test.
 *
 * Stryker's vitest runner (9.x, and 10.0) builds a mutant's result from the tests it
 * collected, and a file whose import throws collects none — so a mutant that makes a
 * module throw at load (a static mutant: a constant, a table built at import) was
 * scored "survived" although every test of the file fails (stryker-js#6150). At the
 * end of the run this gives each such file a failed test carrying its load error,
 * which the runner collects like any other. A file that loaded is left as it is.
 */
import type { RunnerTestCase, RunnerTestFile } from "vitest";
import type { Reporter, Vitest } from "vitest/node";

export default class LoadFailureAsFailedTest implements Reporter {
  #vitest: Pick<Vitest, "state"> | undefined;

  onInit(vitest: Pick<Vitest, "state">): void {
    this.#vitest = vitest;
  }

  // The files of the run, as Stryker's runner reads them (`state.getFiles()`).
  onTestRunEnd(): void {
    for (const file of this.#vitest?.state.getFiles() ?? []) markUnloaded(file);
  }
}

/** Gives a file that failed with no test one failed test (exported for its test). */
export function markUnloaded(file: RunnerTestFile): boolean {
  if (file.result?.state !== "fail" || file.tasks.length > 0) return false;
  const failed = {
    type: "test",
    id: `${file.id}_load`,
    name: "(the test file failed to load)",
    mode: "run",
    file,
    meta: {},
    annotations: [],
    artifacts: [],
    timeout: 0,
    result: { state: "fail", errors: file.result.errors ?? [] },
    // vitest types a test with a context only a run can build; nothing reads it after the run.
  } as unknown as RunnerTestCase;
  file.tasks.push(failed);
  return true;
}
