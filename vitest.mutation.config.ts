import { defineConfig } from "vitest/config";

/**
 * The tests Stryker runs against mutants of the core (`npm run test:mutation`,
 * stryker.config.mjs): the pure tests of the differ, alert decisions, rule matching
 * and retries, and the Redis-backed test of the delivery order. Slow and process
 * tests stay out: per-test coverage runs only the tests that reach a mutant, but the
 * first run of Stryker runs them all.
 */
export default defineConfig({
  test: {
    include: [
      "test/diff/**/*.test.ts",
      "test/dispatch/alert-*.test.ts",
      "test/rules/**/*.test.ts",
      "test/api/retry-policy.test.ts",
      "test/deliver/event-type.test.ts",
      "test/deliver/delivery-order.test.ts",
      "test/web/link-token.test.ts",
      "test/detect/window.test.ts",
      "test/mutation/**/*.test.ts",
    ],
    // fs.watch timing: nothing of the core, and the only test here that waits on the OS.
    exclude: ["test/rules/read/rule-watcher.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    reporters: ["default", "./test/mutation/load-failure-reporter.ts"],
  },
});
