/**
 * Exit codes of every `flightwatch` subcommand, decided in one place:
 * 0 success, 1 failure at run time (upstream, Redis, delivery), 2 usage or
 * configuration error (bad option, parameter or variable, a base URL whose path the
 * upstream does not serve), 3 "not found".
 */
import { CommanderError } from "commander";
import { ErrorCode, type FlightwatchError, NotFoundError } from "../errors.js";

export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3 } as const;

/** Exit code for a flightwatch error. */
export function exitCodeOf(err: FlightwatchError): number {
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (
    err.code === ErrorCode.INVALID_PARAM ||
    err.code === ErrorCode.CONFIG_INVALID ||
    err.code === ErrorCode.RULE_INVALID ||
    err.code === ErrorCode.SUBSCRIPTIONS_INVALID ||
    // A wrong base URL or Redis password is a configuration mistake, whoever noticed it.
    err.code === ErrorCode.UPSTREAM_BASE_URL ||
    err.code === ErrorCode.REDIS_AUTH
  ) {
    return EXIT.usage;
  }
  return EXIT.failure;
}

/** Commander's own usage errors (unknown option, missing argument) exit 2 like ours. */
export function usageExit(err: CommanderError): never {
  throw err.exitCode === 0 ? err : new CommanderError(EXIT.usage, err.code, err.message);
}
