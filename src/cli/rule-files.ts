/**
 * Where the rule files are, for `rules` and `watch --rules`: shared, so no command file
 * imports another. (Running processes keep them live: src/daemon/live-rules.ts.)
 */

/** Default rules directory when neither an argument nor FLIGHTWATCH_RULES gives one. */
export const DEFAULT_RULES_DIR = "rules";

/** The rules directory: the argument, else FLIGHTWATCH_RULES, else `rules`. */
export function rulesDir(arg: string | undefined, env: Record<string, string | undefined>): string {
  return arg ?? (env.FLIGHTWATCH_RULES?.trim() || DEFAULT_RULES_DIR);
}
