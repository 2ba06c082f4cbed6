/**
 * A logger writing into memory through a real Writable, for tests that read back
 * exactly what would have reached standard output.
 */
import { Writable } from "node:stream";
import { createLogger, type Logger, type LoggerOptions } from "../../src/log/logger.js";

/** A logger and everything it wrote. */
export interface LogCapture {
  logger: Logger;
  /** All output so far, as written. */
  output(): string;
  /** Output lines, without empty ones. */
  lines(): string[];
  /** Each line parsed as JSON (fails the test on a line that is not JSON). */
  entries(): Record<string, unknown>[];
}

/** Starts a logger (JSON unless `options.format` says otherwise) writing to memory. */
export function captureLog(options: Omit<LoggerOptions, "destination"> = {}): LogCapture {
  let out = "";
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      out += String(chunk);
      callback();
    },
  });
  const logger = createLogger({ level: "trace", ...options, destination });
  const lines = (): string[] => out.split("\n").filter((line) => line !== "");
  return {
    logger,
    output: () => out,
    lines,
    entries: () => lines().map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
