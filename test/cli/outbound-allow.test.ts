/**
 * OUTBOUND_ALLOW through the real CLI: a rule whose webhook is `http://127.0.0.1:<port>/`
 * is refused by `rules check` and by `run` with the file, line and rule, and `run`
 * delivers to it once OUTBOUND_ALLOW lists 127.0.0.1; a bad entry is a configuration
 * error naming the variable and the entry.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnCli } from "../support/cli-process.js";
import { changeGates, gatedFlights } from "../support/crash-run.js";
import { baselineTaken, HOOK_SECRET, type RunRig, startRunRig, waitForLog } from "./run-harness.js";

/** What a rule file problem about the rig's gate rule looks like on one line. */
const REFUSED =
  /gates\.yaml:4:\d+ rule `gates`: `url` is refused: 127\.0\.0\.1 is a loopback address — .*OUTBOUND_ALLOW/;

describe("OUTBOUND_ALLOW through the CLI", () => {
  let rig: RunRig;
  beforeAll(async () => {
    rig = await startRunRig("outbound-allow", 41);
  });
  afterEach(async () => {
    await rig?.killAll();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it("`rules check` refuses a loopback webhook with file:line, and passes it when allowed", async () => {
    const refused = spawnCli(["rules", "check", rig.rulesDir], {
      OUTBOUND_ALLOW: "",
      RULE_HOOK_SECRET: HOOK_SECRET,
    });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toMatch(REFUSED);

    const allowed = spawnCli(["rules", "check", rig.rulesDir], {
      OUTBOUND_ALLOW: "127.0.0.1",
      RULE_HOOK_SECRET: HOOK_SECRET,
    });
    expect(await allowed.exited).toBe(0);
    expect(allowed.stdout()).toMatch(/1 rule in 1 file — OK/);
  });

  it("a bad entry is a configuration error naming the variable and the entry", async () => {
    const bad = spawnCli(["rules", "check", rig.rulesDir], {
      OUTBOUND_ALLOW: "127.0.0.1,10.0.0.0/99",
    });
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toMatch(
      /OUTBOUND_ALLOW: "10\.0\.0\.0\/99" is not an address or CIDR block/,
    );
    const run = rig.spawnRun([], { OUTBOUND_ALLOW: "hooks internal" });
    expect(await run.exited).toBe(2);
    expect(run.stdout() + run.stderr()).toMatch(/OUTBOUND_ALLOW: "hooks internal"/);
  });

  it("`run` refuses to start on it, and delivers to it with OUTBOUND_ALLOW=127.0.0.1", async () => {
    const refused = rig.spawnRun([], { OUTBOUND_ALLOW: "" });
    expect(await refused.exited).not.toBe(0);
    expect(refused.stdout() + refused.stderr()).toMatch(REFUSED);
    expect(rig.receiver.deliveries).toHaveLength(0);

    const allowed = rig.spawnRun([], { OUTBOUND_ALLOW: "127.0.0.1" });
    await waitForLog(allowed, (l) => /running/.test(l.msg));
    await baselineTaken(rig);
    const gates = changeGates(rig.sim, gatedFlights(rig.sim, 1), 200);
    try {
      await rig.receiver.waitForIds(1, 30_000);
    } finally {
      gates.stop();
    }
    expect(rig.receiver.deliveries.every((d) => d.verified)).toBe(true);
  }, 60_000);
});
