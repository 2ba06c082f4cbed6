/**
 * Compose's variable interpolation: `$NAME`, `${NAME}`, `${NAME:-default}` (unset or
 * empty), `${NAME-default}` (unset), `${NAME:?message}` / `${NAME?message}` (required),
 * `${NAME:+other}` / `${NAME+other}`, and `$$` for a literal `$`. What a value in
 * docker-compose.yml becomes for a given shell environment (or .env file).
 */

/** The value after interpolation; throws the message of a required variable that is missing. */
export function interpolate(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return text.replace(
    /\$\$|\$\{(\w+)(?:(:?)([-?+])([^}]*))?\}|\$(\w+)/g,
    (whole, name: string, colon: string, op: string, arg: string, bare: string) => {
      if (whole === "$$") return "$";
      if (bare !== undefined) return env[bare] ?? "";
      const value = env[name];
      const missing = value === undefined || (colon === ":" && value === "");
      switch (op) {
        case "-":
          return missing ? arg : value!;
        case "?":
          if (missing) throw new Error(`${name}: ${arg || "required variable is missing"}`);
          return value!;
        case "+":
          return missing ? "" : arg;
        default:
          return value ?? "";
      }
    },
  );
}
