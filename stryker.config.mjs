// Mutation testing of the core: `npm run test:mutation` (docs/testing.md).
// One file only: `npm run test:mutation -- --mutate src/diff/flight-diff.ts`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts", related: false },
  coverageAnalysis: "perTest",
  mutate: [
    "src/diff/flight-diff.ts",
    "src/diff/flight-snapshot.ts",
    "src/diff/change.ts",
    "src/diff/codeshare-fold.ts",
    "src/diff/event-id.ts",
    "src/diff/murmur3-hash.ts",
    "src/diff/sort-strings.ts",
    "src/dispatch/alert-decision.ts",
    "src/rules/flight-criteria.ts",
    "src/rules/match/flight-filter.ts",
    "src/rules/match/flight-tests.ts",
    "src/rules/match/rule-matcher.ts",
    "src/rules/change-options.ts",
    "src/rules/match/change-selector.ts",
    "src/rules/retry-schedule.ts",
    "src/api/retry-policy.ts",
    "src/deliver/event-type.ts",
    "src/deliver/delivery-order.ts",
    "src/rules/read/json-tree.ts",
    "src/rules/quiet-hours.ts",
    "src/web/link-token.ts",
    "src/detect/window.ts",
  ],
  // Type errors are mutants the compiler kills; checking them costs more than running them.
  checkers: [],
  concurrency: 2,
  timeoutMS: 20_000,
  incremental: false,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: ".stryker-tmp",
  // Not copied to the sandbox: builds, reports, and the sandboxes of other runs.
  ignorePatterns: ["dist", "coverage", "reports", ".stryker-tmp*"],
  cleanTempDir: true,
};
