/**
 * Child processes of the delivery benchmarks (receivers, flightwatch processes), run
 * with tsx and spoken to over IPC: one request, one answer.
 */
import { type ChildProcess, fork } from "node:child_process";

/** A running child. */
export interface BenchChild {
  /** The first message the child sends on its own (it is ready). */
  hello: Promise<unknown>;
  /** Sends a request; resolves to the child's next message. */
  ask<T>(message: object): Promise<T>;
  /** Resolves when the child has exited. */
  exited: Promise<unknown>;
}

/** Forks `file` (relative to bench/) with `env` added to this process's environment. */
export function forkBenchChild(file: string, env: NodeJS.ProcessEnv = {}): BenchChild {
  const child: ChildProcess = fork(new URL(file, import.meta.url), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      child.once("message", resolve);
      void exited.then((code) => reject(new Error(`${file} exited (${code})`)));
    });
  return {
    hello: next(),
    exited,
    ask<T>(message: object) {
      const answer = next();
      child.send(message);
      return answer as Promise<T>;
    },
  };
}
