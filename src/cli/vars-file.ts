/**
 * `--vars-file`: the rule variables (`${NAME}` in rule files), from a `NAME=value`
 * file, for every command that loads rules (`run`, `demo`, `config`, `watch`, `rules`).
 * Reading it is src/config/rule-variables.ts.
 */

/**
 * Help of `--vars-file`, shared by the commands that load rules. (Not `--env-file`:
 * Node 20 takes that for its own option even after the script name, nodejs/node#54232,
 * and exits 9 when the file is missing before flightwatch runs at all.)
 */
export const VARS_FILE_HELP = `read the rule variables (\${NAME} in rule files) from this file of NAME=value lines; RULE_… names in the environment override their values; flightwatch's own settings are refused here`;
