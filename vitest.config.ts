import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // test/chaos/ is `npm run test:chaos` (vitest.chaos.config.ts).
    exclude: ["test/chaos/**", "node_modules/**", "dist/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Most slow tests wait on child processes, Redis and timers, not on the CPU: three
    // files at once on two cores (vitest's default is cores - 1 = one) take the suite
    // from about 7 minutes (two) to about 5½, and it holds with two CPU hogs beside it.
    maxWorkers: 3,
  },
});
