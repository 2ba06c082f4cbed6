import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // test/chaos/ is `npm run test:chaos` (vitest.chaos.config.ts).
    exclude: ["test/chaos/**", "node_modules/**", "dist/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
    // Most slow tests wait on child processes and timers, not on the CPU: two files at
    // once on two cores halves the wall time (vitest's default is cores - 1 = one).
    maxWorkers: 2,
  },
});
