/** A Redis Cluster of a test's own: shared with the benchmarks (bench/support/). */
export * from "../../bench/support/redis-cluster.js";
