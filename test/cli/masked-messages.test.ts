/**
 * Masking hides credential values, not the words around them: the CLI's error line
 * for two credential schemes at once reads as written ("(Bearer token) or …", not
 * "(Bearer *** or …"), through `api`, `run` and `config`, while the values themselves
 * never appear. Real child processes, as a user runs them.
 */
import { describe, expect, it } from "vitest";
import { spawnCli } from "../support/cli-process.js";

const TOKEN = "tok3n-9f8e7d6c5b4a-do-not-print";
const APP_KEY = "appkey-1234567890abcdef";
const ENV = {
  FLIGHT_API_BASE_URL: "http://127.0.0.1:9/public/public-flights/v4",
  FLIGHT_API_TOKEN: TOKEN,
  FLIGHT_API_APP_ID: "my-app-id",
  FLIGHT_API_APP_KEY: APP_KEY,
  REDIS_URL: "redis://127.0.0.1:9",
  HTTP_PORT: "off",
  FLIGHTWATCH_CONFIG: "",
};
const SENTENCE =
  "FLIGHT_API_TOKEN: set either FLIGHT_API_TOKEN (Bearer token) or FLIGHT_API_APP_ID/FLIGHT_API_APP_KEY, not both";

async function run(args: string[]) {
  const proc = spawnCli(args, ENV);
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), 30_000);
  const code = await proc.exited;
  clearTimeout(timer);
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe("masked messages stay readable", () => {
  it("prints the two-schemes error whole, in api, run and config; never a credential", async () => {
    const [api, daemon, config] = await Promise.all([
      run(["api", "airlines"]),
      run(["run"]),
      run(["config"]),
    ]);
    expect(api.code, api.stderr).toBe(2);
    expect(api.stderr).toBe(`flightwatch: ${SENTENCE} [FW_ERR_CONFIG_INVALID]\n`);
    expect(daemon.code, daemon.stderr).toBe(2);
    expect(daemon.stderr).toContain(SENTENCE);
    expect(config.code, config.stdout).toBe(2);
    expect(config.stdout).toContain(`  ${SENTENCE}\n`);
    for (const out of [api, daemon, config]) {
      const text = out.stdout + out.stderr;
      expect(text).not.toContain("Bearer ***");
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(APP_KEY);
    }
  }, 60_000);
});
