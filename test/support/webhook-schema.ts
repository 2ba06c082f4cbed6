/**
 * The published contract of webhook bodies, `schemas/webhook.schema.json`, as tests
 * use it: compiled once with Ajv (JSON Schema 2020-12, ajv-formats for `date-time`,
 * `date` and `uri-reference`), in two readings. `open` is the schema as receivers get
 * it: fields it does not name are allowed, since later versions may add some.
 * `closed` is the same schema with every object closed (`unevaluatedProperties:
 * false`): a field flightwatch sends that the schema does not document fails it.
 */
import { readFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";

/** Where the schema lives in the repository (and in the npm package). */
export const WEBHOOK_SCHEMA_PATH = new URL("../../schemas/webhook.schema.json", import.meta.url);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type SchemaObject = { [key: string]: Json };

/** The schema file, parsed. */
export function webhookSchema(): SchemaObject {
  return JSON.parse(readFileSync(WEBHOOK_SCHEMA_PATH, "utf8")) as SchemaObject;
}

/**
 * `schema` with every object shape closed: each schema under `properties`, `items` or
 * `$defs` that names properties and leaves `additionalProperties` open. Left as they
 * are: conditions (`if`, `then`, `not`, `contains`, the `change-…`, `changes-…` and
 * `outranks-…` patterns), which test shapes rather than define them, and `$defs.data`,
 * which the plain JSON format extends (`allOf`) with `id`, `type` and `sequence`: it is
 * closed where the CloudEvent uses it as `data` instead.
 */
export function closedSchema(schema: SchemaObject): SchemaObject {
  const copy = structuredClone(schema);
  const close = (node: Json | undefined): void => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    if (node.properties !== undefined && node.additionalProperties === undefined) {
      node.unevaluatedProperties = false;
    }
    const properties = node.properties;
    if (properties && typeof properties === "object" && !Array.isArray(properties)) {
      for (const value of Object.values(properties)) close(value);
    }
    close(node.items);
  };
  const defs = copy.$defs as Record<string, Json>;
  for (const [name, def] of Object.entries(defs)) {
    if (name === "data" || /^(change|changes|outranks)-/.test(name)) continue;
    close(def);
  }
  const data = (defs.cloudEvent as { properties: { data: SchemaObject } }).properties.data;
  data.type = "object";
  data.unevaluatedProperties = false;
  const mixin = defs.data as SchemaObject;
  const fields = mixin.properties as Record<string, Json>;
  for (const value of Object.values(fields)) close(value);
  return copy;
}

let compiled: { open: ValidateFunction; closed: ValidateFunction } | undefined;

function validators(): { open: ValidateFunction; closed: ValidateFunction } {
  if (compiled) return compiled;
  const schema = webhookSchema();
  const make = (s: SchemaObject): ValidateFunction => {
    // Strict: an unknown or misplaced keyword, or one without its type (what Ajv's
    // default only logs), is an error, so receivers' Ajv compiles it silently.
    // `strictRequired` is off: `if: { required: [specversion] }` names no properties.
    const ajv = new Ajv2020({
      strict: true,
      strictRequired: false,
      allErrors: true,
      verbose: true,
    });
    // ajv-formats is CommonJS: TypeScript types its default import as the module, whose
    // `default` is the plugin.
    formats.default(ajv);
    return ajv.compile(s);
  };
  compiled = { open: make(schema), closed: make(closedSchema(schema)) };
  return compiled;
}

/** Why `body` does not match the schema (empty when it does), one line per problem. */
export function webhookSchemaErrors(
  body: unknown,
  reading: "open" | "closed" = "closed",
): string[] {
  const validate = validators()[reading];
  if (validate(body)) return [];
  return (validate.errors ?? []).map(describeError);
}

function describeError(e: ErrorObject): string {
  const got =
    e.keyword === "unevaluatedProperties"
      ? ` (${String((e.params as { unevaluatedProperty?: string }).unevaluatedProperty)})`
      : ["enum", "const", "type", "pattern", "format", "minimum", "minItems"].includes(e.keyword)
        ? ` (got ${JSON.stringify(e.data)?.slice(0, 80)})`
        : "";
  return `${e.instancePath || "/"} ${e.message ?? e.keyword}${got} [${e.schemaPath}]`;
}
