/**
 * What `flightwatch api-keys` does, loaded when a subcommand runs (api-keys-command.ts
 * is the definition): makes a key and prints it once, lists the keys, revokes them.
 * The key goes to stdout alone (a script captures it); what to do with it, to stderr.
 */
import { redisSettingsFromEnv } from "../config/detect-settings.js";
import { InvalidParamError } from "../errors.js";
import { type ApiKey, ApiKeyStore, apiKeyNameProblem } from "../http-api/api-key-store.js";
import { connectRedis } from "../store/redis-connection.js";
import { redisKeys } from "../store/redis-keys.js";
import type { CreateFlags, ListFlags } from "./api-keys-command.js";
import { EXIT } from "./exit-codes.js";

/** `api-keys create`: stores the hash of a new key, prints the key. */
export async function createApiKey(flags: CreateFlags): Promise<void> {
  const name = flags.name ?? "";
  const problem = apiKeyNameProblem(name);
  if (problem !== undefined) throw new InvalidParamError("--name", problem);
  await withStore(async (store, prefix) => {
    const { key, apiKey } = await store.create(name);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ ...json(apiKey), key })}\n`);
      return;
    }
    process.stdout.write(`${key}\n`);
    process.stderr.write(
      `created ${apiKey.id}${apiKey.name ? ` (${apiKey.name})` : ""} under the prefix ${prefix}; ` +
        "the key above is shown this once and cannot be recovered: keep it in the client's secrets, " +
        'send it as "Authorization: Bearer <key>", and revoke it with `flightwatch api-keys revoke ' +
        `${apiKey.id}\`\n`,
    );
  });
}

/** `api-keys list`: one line (or JSON object) per key. */
export async function listApiKeys(flags: ListFlags): Promise<void> {
  await withStore(async (store, prefix) => {
    const keys = await store.list();
    for (const k of keys) {
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(json(k))}\n`
          : `${k.id}  ${time(k.createdAt)}  ${k.name || "(no name)"}\n`,
      );
    }
    if (!flags.json && keys.length === 0) {
      process.stdout.write(`no API keys under the prefix ${prefix}\n`);
    }
  });
}

/** `api-keys revoke`: revokes each; names those it did not find. */
export async function revokeApiKeys(ids: string[]): Promise<void> {
  await withStore(async (store) => {
    for (const id of ids) {
      if (await store.revoke(id)) {
        process.stdout.write(`revoked ${id}\n`);
      } else {
        process.stderr.write(`flightwatch: ${id}: no API key with this id\n`);
        process.exitCode = EXIT.failure;
      }
    }
  });
}

async function withStore(body: (store: ApiKeyStore, prefix: string) => Promise<void>) {
  const settings = redisSettingsFromEnv(process.env);
  const redis = await connectRedis(settings.url);
  try {
    await body(new ApiKeyStore(redis, redisKeys(settings.prefix)), settings.prefix);
  } finally {
    redis.disconnect();
  }
}

function json(k: ApiKey) {
  return { id: k.id, name: k.name, createdAt: new Date(k.createdAt).toISOString() };
}

const time = (ms: number): string =>
  `${new Date(ms).toISOString().replace("T", " ").slice(0, 19)} UTC`;
