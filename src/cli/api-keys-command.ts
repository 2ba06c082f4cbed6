/**
 * `flightwatch api-keys`: the keys of the subscriptions HTTP API (/api/v1 on HTTP_PORT)
 * — make one (printed once: only its SHA-256 is kept), list them (never the keys),
 * revoke one (refused from the next request on). Reads the same Redis (`REDIS_URL`,
 * `FLIGHTWATCH_PREFIX`) as the daemon, which checks every request against it.
 *
 * This file is the definition only (what `--help` shows); the work is
 * api-keys-action.ts, loaded when a subcommand runs.
 */
import type { Command } from "commander";

const EXAMPLES = `
Examples:
  $ flightwatch api-keys create --name booking-app
      prints the new key once (fwk_…) on stdout: store it in the app's secrets now
  $ KEY=$(flightwatch api-keys create --name booking-app)
  $ curl -H "Authorization: Bearer $KEY" http://127.0.0.1:8080/api/v1/subscriptions
  $ flightwatch api-keys list
  $ flightwatch api-keys revoke ak_3f9c0a1b2c3d4e5f
`;

/** Flags of `api-keys create`. */
export interface CreateFlags {
  name?: string;
  json?: boolean;
}

/** Flags of `api-keys list`. */
export interface ListFlags {
  json?: boolean;
}

/** The subcommands' work, loaded when one runs. */
const actions = () => import("./api-keys-action.js");

/** Adds `api-keys create`, `api-keys list` and `api-keys revoke` to the program. */
export function registerApiKeysCommand(program: Command): void {
  const apiKeys = program
    .command("api-keys")
    .description(
      "keys of the subscriptions HTTP API: create, list, revoke (REDIS_URL, FLIGHTWATCH_PREFIX)",
    )
    .addHelpText("after", EXAMPLES);

  apiKeys
    .command("create")
    .description("make a new API key and print it, once; only its hash is kept")
    .option("--name <name>", "what the key is for, shown by `api-keys list`", "")
    .option("--json", "print id, name, creation time and the key as JSON")
    .action(async (flags: CreateFlags) => (await actions()).createApiKey(flags));

  apiKeys
    .command("list")
    .description("list the API keys: id, name, creation time (never the keys)")
    .option("--json", "one JSON object per line")
    .action(async (flags: ListFlags) => (await actions()).listApiKeys(flags));

  apiKeys
    .command("revoke")
    .description("revoke API keys: requests presenting them are refused from now on")
    .argument("<ids...>", "key ids (ak_…), as `api-keys list` shows them")
    .action(async (ids: string[]) => (await actions()).revokeApiKeys(ids));
}
