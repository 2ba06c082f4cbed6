/**
 * The parts of the Compose file format that docker-compose.yml uses and the tests rely
 * on, as a zod schema: services with image or build, command, environment, env_file,
 * volumes, ports, depends_on with conditions, healthcheck, profiles. Keys it does not
 * name pass through (Compose has many); a wrong type in a key it does name fails.
 */
import { z } from "zod";

const stringList = z.array(z.string());

/** `command` and healthcheck `test`: a list (exec form) or one string (shell form). */
const command = z.union([z.string(), stringList]);

/** `environment`: a mapping, or a list of `NAME=value`. */
const environment = z.union([
  z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  stringList,
]);

const envFile = z.union([
  z.string(),
  z.array(z.union([z.string(), z.object({ path: z.string(), required: z.boolean().optional() })])),
]);

const dependency = z.object({
  condition: z.enum(["service_started", "service_healthy", "service_completed_successfully"]),
  required: z.boolean().optional(),
  restart: z.boolean().optional(),
});

/** One service: what the tests read of it. */
export const composeServiceSchema = z.looseObject({
  image: z.string().optional(),
  build: z
    .union([
      z.string(),
      z.looseObject({ context: z.string().optional(), dockerfile: z.string().optional() }),
    ])
    .optional(),
  command: command.optional(),
  init: z.boolean().optional(),
  environment: environment.optional(),
  env_file: envFile.optional(),
  volumes: stringList.optional(),
  ports: stringList.optional(),
  depends_on: z.union([stringList, z.record(z.string(), dependency)]).optional(),
  healthcheck: z
    .looseObject({
      test: command,
      interval: z.string().optional(),
      timeout: z.string().optional(),
      start_period: z.string().optional(),
      retries: z.number().int().positive().optional(),
    })
    .optional(),
  profiles: stringList.optional(),
  stop_grace_period: z.string().optional(),
  restart: z.enum(["no", "always", "on-failure", "unless-stopped"]).optional(),
});

/** A compose service as the schema reads it. */
export type ComposeService = z.infer<typeof composeServiceSchema>;

/** The file: the four services we ship, any others, and named volumes. */
export const composeFileSchema = z.looseObject({
  name: z.string().optional(),
  services: z
    .record(z.string(), composeServiceSchema)
    .refine((s) => ["redis", "flightwatch", "mailpit", "simulator"].every((n) => n in s), {
      message: "expected the services redis, flightwatch, mailpit and simulator",
    }),
  volumes: z.record(z.string(), z.union([z.null(), z.looseObject({})])).optional(),
});

/** A compose file as the schema reads it. */
export type ComposeFile = z.infer<typeof composeFileSchema>;

/** A service's environment as a mapping (list entries split at the first `=`). */
export function environmentOf(service: ComposeService): Record<string, string> {
  const env = service.environment;
  if (env === undefined) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry) => {
        const eq = entry.indexOf("=");
        return eq === -1 ? [entry, ""] : [entry.slice(0, eq), entry.slice(eq + 1)];
      }),
    );
  }
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value === null ? "" : String(value)]),
  );
}

/** A command or healthcheck test as a list of words (a string is split on spaces). */
export function wordsOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : value.trim().split(/\s+/);
}
