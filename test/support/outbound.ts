/**
 * Re-exports bench/support/outbound.ts: the rig lives there so that the benchmarks
 * share it without importing test/ (issue 20); the tests keep importing it from here.
 */
export * from "../../bench/support/outbound.js";
