import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    exclude: ["test/acceptance/**", "node_modules/**", "dist/**"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: "forks",
  },
});
