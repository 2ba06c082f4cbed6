import { defineConfig } from "vitest/config";

/**
 * `npm run test:chaos`: the chaos set (test/chaos/) — SIGKILLs, Redis restarts,
 * upstream storms, receiver outages, several daemons — each minutes long, so they
 * stay out of `npm test`. One file at a time: they time real processes.
 */
export default defineConfig({
  test: {
    include: ["test/chaos/**/*.test.ts"],
    exclude: ["node_modules/**", "dist/**"],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
