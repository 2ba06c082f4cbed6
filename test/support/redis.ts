/**
 * Re-exports bench/support/redis.ts: the rig lives there so that the benchmarks
 * share it without importing test/ (issue 20); the tests keep importing it from here.
 */
export * from "../../bench/support/redis.js";
