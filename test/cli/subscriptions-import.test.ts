/**
 * `flightwatch subscriptions import` and `export` as an operator runs them (the real
 * CLI, a child process, a real Redis): a CSV of passengers imported, exported as NDJSON
 * and CSV and imported into another deployment as the same subscriptions; a file with
 * bad lines named line by line and nothing written; `--skip-invalid`; run again, an
 * import adds nothing twice.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toLocalDate } from "../../src/time/local-time.js";
import { spawnCli, testRedisEnv } from "../support/cli-process.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
const DATE = toLocalDate(Date.now() + 2 * 86_400_000, ZONE);
const SECRET = `whsec_${Buffer.alloc(32, 5).toString("base64")}`;

const PASSENGERS_CSV = `id,flight,date,email,webhook,preset,labels,remind
anna-x7q2lm,DL9870,${DATE},anna@example.com,,essentials,booking=X7Q2LM;seat=12A,"30m before boarding, 3h before departure"
,KL 1871,${DATE},bob@example.com,,,"booking=B,52",
`;
const APP_NDJSON = `${JSON.stringify({
  id: "app-kl1870",
  flight: "KL1870",
  date: DATE,
  webhook: "https://app.example.com/hooks/fw",
  secret: SECRET,
  changes: ["gate", { kind: "departure_time", delay_at_least: "30m" }],
  status: "pending",
})}\n`;

describe("flightwatch subscriptions import and export", () => {
  let a: TestRedis;
  let b: TestRedis;
  let dir: string;

  beforeEach(async () => {
    a = await testRedis("sub-cli-a");
    b = await testRedis("sub-cli-b");
    dir = await mkdtemp(join(tmpdir(), "fw-sub-cli-"));
  });

  afterEach(async () => {
    await a.cleanup();
    await b.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(t: TestRedis, ...args: string[]) {
    const proc = spawnCli(["subscriptions", ...args], {
      ...testRedisEnv(t.prefix),
      AIRPORT_TIMEZONE: ZONE,
    });
    const code = await proc.exited;
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  }

  async function file(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  it("imports CSV and NDJSON, exports them, and another deployment imports the export as the same subscriptions", async () => {
    const csv = await cli(a, "import", await file("passengers.csv", PASSENGERS_CSV));
    expect(csv).toMatchObject({ code: 0, stderr: "" });
    expect(csv.stdout).toMatch(/passengers\.csv: 2 lines: 2 added, 0 replaced, 0 unchanged/);
    expect((await cli(a, "import", await file("app.jsonl", APP_NDJSON))).code).toBe(0);

    const out = join(dir, "all.ndjson");
    const exported = await cli(a, "export", "--with-secrets", "--output", out);
    expect(exported).toMatchObject({ code: 0, stdout: `exported 3 subscriptions to ${out}\n` });
    const lines = (await readFile(out, "utf8")).trimEnd().split("\n");
    const subs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(subs.map((s) => [s.flight, s.status])).toEqual([
      ["DL9870", "active"],
      ["KL1870", "pending"],
      ["KL1871", "active"],
    ]);
    expect(subs[0]).toMatchObject({
      id: "anna-x7q2lm",
      email: "anna@example.com",
      remind: ["30m before boarding", "3h before departure"],
      labels: { booking: "X7Q2LM", seat: "12A" },
    });
    expect(subs[1]).toMatchObject({
      secret: SECRET,
      changes: ["gate", { kind: "departure_time", delay_at_least: "30m" }],
    });
    expect(subs[2]).toMatchObject({ email: "bob@example.com", labels: { booking: "B,52" } });

    // NDJSON into another deployment, then CSV back out of it: the same.
    const copied = await cli(b, "import", "--replace", out);
    expect(copied.stdout).toMatch(/3 added/);
    const again = await cli(b, "export", "--with-secrets");
    expect(again.stdout).toBe(`${lines.join("\n")}\n`);
    const csvOut = await cli(b, "export", "--format", "csv");
    expect(csvOut.stdout.split("\n")[0]).toBe(
      "id,flight,date,direction,email,webhook,secret,preset,changes,labels,language,quietHours,remind,status",
    );
    expect(csvOut.stdout).toContain(",***,"); // masked by default
    const back = await cli(a, "import", "--replace", await file("back.csv", csvOut.stdout));
    expect(back.stdout).toMatch(/3 lines: 0 added, 0 replaced, 3 unchanged/);
    expect((await cli(a, "export", "--with-secrets")).stdout).toBe(`${lines.join("\n")}\n`);
  }, 60_000);

  it("names every bad line by file, line and field and writes nothing; --skip-invalid imports the rest; run again, it adds nothing twice", async () => {
    const bad = await file(
      "bad.csv",
      `id,flight,date,email,labels
ok-1,KL1001,${DATE},ok1@example.com,
bad-1,KL1001,${DATE},nobody\x1b[31m,
bad-2,KL1001,27-11-2026,bad2@example.com,
ok-2,KL1002,${DATE},ok2@example.com,booking
ok-3,KL1003,${DATE},ok3@example.com,booking=X
`,
    );
    const refused = await cli(a, "import", bad);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("3 lines of");
    expect(refused.stderr).toContain(`${bad}:3: email: `);
    expect(refused.stderr).toContain(`${bad}:4: date: "27-11-2026" is not a date`);
    expect(refused.stderr).toContain(`${bad}:5: labels: "booking" is not name=value`);
    expect(refused.stderr).toContain("[FW_ERR_SUBSCRIPTIONS_INVALID]");
    expect((await cli(a, "list")).stdout).toBe("no subscriptions\n");

    const skipped = await cli(a, "import", "--skip-invalid", bad);
    expect(skipped.code).toBe(0);
    expect(skipped.stdout).toMatch(/5 lines: 2 added, .* 3 skipped as invalid/);
    expect(skipped.stderr.trimEnd().split("\n")).toHaveLength(3);
    const listed = (await cli(a, "list")).stdout;
    expect(listed).toContain("ok-1");
    expect(listed).toContain("ok-3");
    // What a line holds may not drive the terminal.
    expect(skipped.stderr).not.toContain("\x1b");

    const rerun = await cli(a, "import", "--skip-invalid", bad);
    expect(rerun.stdout).toMatch(/5 lines: 0 added, 0 replaced, 2 unchanged/);
    expect((await cli(a, "list", "--json")).stdout.trimEnd().split("\n")).toHaveLength(2);

    const unknown = await cli(a, "import", join(dir, "missing.csv"));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("missing.csv cannot be read (ENOENT)");
  }, 60_000);

  it("add takes --direction, --quiet-hours and --remind, and names the flag when one is wrong", async () => {
    const base = ["add", "--flight", "DL7507", "--date", DATE, "--email", "anna@example.com"];
    const added = await cli(
      a,
      ...base,
      ...["--direction", "arrival", "--quiet-hours", "23:00-07:00", "--json"],
      ...["--remind", "30m before boarding", "--remind", "180m before departure"],
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      flight: "DL7507",
      direction: "arrival",
      quietHours: "23:00-07:00",
      remind: ["30m before boarding", "3h before departure"],
    });
    const quiet = await cli(a, ...base, "--quiet-hours", "23-7");
    expect(quiet.code).toBe(2);
    expect(quiet.stderr).toContain("--quiet-hours");
    const remind = await cli(a, ...base, "--remind", "30m before takeoff");
    expect(remind.code).toBe(2);
    expect(remind.stderr).toContain("--remind");
    expect(remind.stderr).toContain("takeoff");
    const bad = await cli(a, ...base, "--direction", "inbound");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--direction");
    expect(bad.stderr).toContain("departure or arrival");
  }, 60_000);
});
