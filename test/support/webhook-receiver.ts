/**
 * Re-exports bench/support/webhook-receiver.ts: the rig lives there so that the benchmarks
 * share it without importing test/ (issue 20); the tests keep importing it from here.
 */
export * from "../../bench/support/webhook-receiver.js";
