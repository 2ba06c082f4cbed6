import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsOfPair } from "../../src/cli/rules-command.js";
import { loadRuleDir } from "../../src/rules/rule-loader.js";
import { spawnCli } from "../support/cli-process.js";

const ZONE = "Europe/Amsterdam";

const RULES = `
rules:
  - id: anna-kl1001
    labels: { passenger: anna }
    flights: { flight: KL1001 }
    changes: [{ kind: gate, within: 3h }]
    channels:
      - type: email
        to: [anna@example.com]
      - type: slack
        url: https://hooks.slack.com/services/T0/B0/secret-part
        retry: { delays: [1m, 10m], for: 1h }
  - id: pier-e
    flights: { pier: E }
    changes: [gate]
    channels: [{ type: console }]
  - id: pier-d
    flights: { pier: D }
    changes: [gate]
    channels: [{ type: console }]
  - id: belts
    changes: [belt]
    channels: [{ type: console }]
`;

const record = (gate: string, lastUpdatedAt: string) => ({
  id: "123456789012345678",
  flightName: "KL1001",
  mainFlight: "KL1001",
  flightDirection: "D" as const,
  prefixIATA: "KL",
  scheduleDateTime: "2026-11-21T10:25:00.000+01:00",
  scheduleDate: "2026-11-21",
  lastUpdatedAt,
  gate,
  pier: gate.slice(0, 1),
  route: { destinations: ["WAW"] },
});

describe("flightwatch rules", () => {
  let dir: string;
  let rules: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fw-rules-cli-"));
    rules = join(dir, "rules");
    await mkdir(rules);
    await writeFile(join(rules, "a.yaml"), RULES);
    await writeFile(
      join(dir, "before.json"),
      JSON.stringify(record("D7", "2026-11-21T08:00:00.000+01:00")),
    );
    await writeFile(
      join(dir, "after.json"),
      JSON.stringify(record("E9", "2026-11-21T08:05:00.000+01:00")),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  /** `rules test` of the before/after records at a local time. */
  const testPair = (now: string, ...more: string[]) =>
    spawnCli([
      ...["rules", "test", rules, "--before", join(dir, "before.json")],
      ...["--after", join(dir, "after.json"), "--now", now, ...more],
    ]);

  it("check: exit 0 and a summary for valid files", async () => {
    const proc = spawnCli(["rules", "check", rules]);
    expect(await proc.exited).toBe(0);
    expect(proc.stdout()).toContain("4 rules in 1 file");
  }, 20_000);

  it("check: exit 1 with every problem on its own line, positioned, with a hint", async () => {
    const bad = join(dir, "bad");
    await mkdir(bad);
    await writeFile(
      join(bad, "ops.yaml"),
      "rules:\n  - id: pier-d\n    changes: [gat]\n    grup_wait: 1m\n    channels: [{ type: console }]\n",
    );
    const proc = spawnCli(["rules", "check", bad]);
    expect(await proc.exited).toBe(1);
    const lines = proc.stderr().trim().split("\n");
    expect(lines).toContain(
      `${join(bad, "ops.yaml")}:3:15 rule \`pier-d\`: unknown change kind \`gat\` — did you mean \`gate\`?`,
    );
    expect(lines.some((l) => l.includes(":4:5") && l.includes("did you mean `group_wait`?"))).toBe(
      true,
    );
    expect(lines.at(-1)).toContain("2 problems");
  }, 20_000);

  it("check: the FLIGHTWATCH_RULES directory by default, and a missing directory is an error", async () => {
    const ok = spawnCli(["rules", "check"], { FLIGHTWATCH_RULES: rules });
    expect(await ok.exited).toBe(0);
    const missing = spawnCli(["rules", "check", join(dir, "nowhere")]);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr()).toContain("nowhere");
  }, 20_000);

  it("test: a before/after pair shows the matching rules and what each channel would get", async () => {
    const proc = testPair("2026-11-21T08:30");
    expect(await proc.exited).toBe(0);
    const out = proc.stdout();
    expect(out).toContain("✓ anna-kl1001");
    // Both piers match the gate change: the flight moved from pier D to E with its gate.
    expect(out).toContain("✓ pier-e");
    expect(out).toContain("✓ pier-d");
    expect(out).not.toContain("✓ belts");
    expect(out).toContain("email → anna@example.com");
    expect(out).toContain("slack → https://hooks.slack.com/services…");
    expect(out).toContain("      retry: 1m, 10m, then every 10m up to 1h (7 attempts)\n");
    expect(out.match(/retry:/g)).toHaveLength(1);
    expect(out).not.toContain("secret-part");
    expect(out).toContain("KL1001 to WAW, departs Sat 21 Nov 10:25: gate D7 → E9");
    expect(out).toContain("3 of 4 rules match; nothing was sent");
  }, 20_000);

  it("test --json: each channel's payload exactly as its sender would send it", async () => {
    const proc = testPair("2026-11-21T08:30", "--json");
    expect(await proc.exited).toBe(0);
    expect(proc.stdout()).not.toContain("secret-part");
    const json = JSON.parse(proc.stdout());
    const anna = json.matches.find((m: { rule: string }) => m.rule === "anna-kl1001");
    const [email, slack] = anna.channels;
    expect(email.payload).toMatchObject({
      subject: "KL1001 2026-11-21: gate D7 → E9",
      to: ["anna@example.com"],
    });
    expect(email.payload.messageId).toBe(`<${email.payload.id}@localhost>`);
    expect(email.payload.html).toContain("gate D7 → E9");
    expect(slack.payload.text).toBe("KL1001 to WAW, departs Sat 21 Nov 10:25: gate D7 → E9");
    expect(slack.payload.blocks[0]).toMatchObject({ type: "header" });
    expect(slack.payload.id).toMatch(/^msg_[a-z2-7]{26}$/);
    expect(slack.payload.id).not.toBe(email.payload.id);
  }, 20_000);

  it("test: outside the lead time the passenger rule does not match; exit 1 when nothing does", async () => {
    const early = testPair("2026-11-21T05:00");
    expect(await early.exited).toBe(0);
    expect(early.stdout()).not.toContain("✓ anna-kl1001");
    expect(early.stdout()).toContain("✓ pier-e");

    const events = eventsOfPair(
      [record("F7", "2026-11-21T08:00:00.000+01:00")],
      [record("F8", "2026-11-21T08:05:00.000+01:00")],
      ZONE,
    );
    await writeFile(join(dir, "event.json"), events.map((e) => JSON.stringify(e)).join("\n"));
    const none = spawnCli([
      "rules",
      "test",
      rules,
      "--event",
      join(dir, "event.json"),
      "--now",
      "2026-11-21T05:00",
      "--json",
    ]);
    expect(await none.exited).toBe(1);
    const json = JSON.parse(none.stdout());
    expect(json.matches).toEqual([]);
    // Events as the detector writes them: the flight's identity, its fields apart.
    expect(Object.keys(json.events[0].flight)).not.toContain("fields");
    expect(json.events[0].current.gate).toBe("F8");
  }, 20_000);

  it("test: names a bad flag value", async () => {
    const proc = spawnCli([
      "rules",
      "test",
      rules,
      "--event",
      join(dir, "event.json"),
      "--now",
      "soon",
    ]);
    expect(await proc.exited).toBe(2);
    expect(proc.stderr()).toContain("--now");
  }, 20_000);
});

describe("the example rules in rules/", () => {
  it("are valid with the demo values of their variables", async () => {
    const root = new URL("../../", import.meta.url).pathname;
    const env: Record<string, string> = {};
    for (const line of (await readFile(join(root, "rules/demo.env"), "utf8")).split("\n")) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line);
      if (m) env[m[1] as string] = m[2] as string;
    }
    const load = await loadRuleDir(join(root, "rules"), { env, zone: ZONE });
    expect(load.problems).toEqual([]);
    // Files in name order, rules in file order.
    expect(load.rules.map((r) => r.id)).toEqual([
      "partner-feed",
      "pier-d-departures",
      "cancellations-and-diversions",
      "long-delays-klm",
      "anna-kl1001",
      "ben-meets-kl1002",
    ]);
  });
});
