import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventsOfPair } from "../../src/cli/rules-action.js";
import { readRuleVariables } from "../../src/config/rule-variables.js";
import { loadRuleDir } from "../../src/rules/read/rule-loader.js";
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
    // The endpoint as records show it, and then masked as every line of the output is.
    expect(out).toContain("slack → https://hooks.slack.com/***");
    expect(out).toContain("      retry: 1m, 10m, then every 10m up to 1h (7 attempts)\n");
    expect(out.match(/retry:/g)).toHaveLength(1);
    expect(out).not.toContain("secret-part");
    expect(out).toContain("KL1001 to WAW, departs Sat 21 Nov 10:25: gate D7 → E9");
    expect(out).toContain("3 of 4 rules match; nothing was sent");
  }, 20_000);

  it("test: says when quiet hours hold an alert, and when it goes out", async () => {
    const quiet = join(dir, "quiet");
    await mkdir(quiet);
    await writeFile(
      join(quiet, "night.yaml"),
      `rules:
  - id: night-gates
    changes: [gate]
    quiet_hours: { from: "23:00", to: "07:00" }
    channels: [{ type: console }]
`,
    );
    const run = (now: string) =>
      spawnCli([
        ...["rules", "test", quiet, "--before", join(dir, "before.json")],
        ...["--after", join(dir, "after.json"), "--now", now],
      ]);
    const night = run("2026-11-21T06:30");
    expect(await night.exited).toBe(0);
    expect(night.stdout()).toContain(
      "    goes out at Sat 21 Nov 07:00 Europe/Amsterdam (after quiet hours)\n",
    );
    const day = run("2026-11-21T08:30");
    expect(await day.exited).toBe(0);
    expect(day.stdout()).not.toContain("goes out at");
  }, 20_000);

  it("test: shows when a rule's reminders fall due, from the flight as the change leaves it", async () => {
    const remind = join(dir, "remind");
    await mkdir(remind);
    await writeFile(
      join(remind, "trip.yaml"),
      `rules:
  - id: trip
    flights: { flight: [KL1001] }
    changes: []
    remind: [3h before departure, 30m before boarding]
    channels: [{ type: console }]
`,
    );
    const run = (now: string) =>
      spawnCli([
        ...["rules", "test", remind, "--before", join(dir, "before.json")],
        ...["--after", join(dir, "after.json"), "--now", now],
      ]);
    const early = run("2026-11-21T06:30");
    expect(await early.exited).toBe(0);
    expect(early.stdout()).toContain("⏰ trip (");
    expect(early.stdout()).toContain(
      "    3h before departure: due Sat 21 Nov 07:25 (departure Sat 21 Nov 10:25)\n",
    );
    expect(early.stdout()).toContain("30m before boarding: none");
    expect(early.stdout()).toContain("0 of 1 rule match; nothing was sent");
    const late = run("2026-11-21T08:30");
    expect(await late.exited).toBe(0);
    expect(late.stdout()).toContain("3h before departure: due already");
  }, 20_000);

  it("test | head: a reader that went away ends the output quietly (exit 0, no EPIPE trace)", async () => {
    const proc = testPair("2026-11-21T08:30");
    // As `head -0` would: the reading end is closed before a line is read.
    proc.child.stdout.destroy();
    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toBe("");
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
      to: "anna@example.com",
    });
    expect(email.payload.messageId).toMatch(
      new RegExp(`^<${email.payload.id}\\.[0-9a-f]{12}@localhost>$`),
    );
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

describe("rule variables", () => {
  // Distinctive values: any of them in the output is a leak.
  const API_TOKEN = "api-token-9f8e7d6c5b4a";
  const REDIS_PASSWORD = "redis-pw-1a2b3c4d5e";
  const SMTP_PASSWORD = "smtp-pw-6f7a8b9c0d";
  const HOOK_SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
  const PATH_PART = "p4th-s3cr3t-segment";
  const OPS_TOKEN = "ops-token-0a9b8c7d6e";
  const BOT_TOKEN = "xoxb-1234-5678-b0tt0ken5ecret";
  const LEAKS = [
    API_TOKEN,
    REDIS_PASSWORD,
    SMTP_PASSWORD,
    HOOK_SECRET,
    PATH_PART,
    OPS_TOKEN,
    BOT_TOKEN,
  ];
  const daemonEnv = {
    FLIGHT_API_TOKEN: API_TOKEN,
    REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:6379`,
    SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@mail.example.com:587`,
  };
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "fw-rule-vars-"));
    for (const [name, value] of [
      ["before.json", record("D7", "2026-11-21T08:00:00.000+01:00")],
      ["after.json", record("E9", "2026-11-21T08:05:00.000+01:00")],
    ] as const) {
      await writeFile(join(dir, name), JSON.stringify(value));
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  /** A rules directory holding `text` as `rules.yaml`. */
  const rulesDir = async (name: string, text: string): Promise<string> => {
    const rulesPath = join(dir, name);
    await mkdir(rulesPath);
    await writeFile(join(rulesPath, "rules.yaml"), text);
    return rulesPath;
  };

  it("check: the daemon's settings are refused with file, line and variable, and never shown", async () => {
    const leaky = await rulesDir(
      "leaky",
      `rules:
  - id: leak
    channels:
      - type: email
        to: [ops@example.com]
        subject: "tok \${FLIGHT_API_TOKEN}"
        template: "redis \${REDIS_URL} smtp \${SMTP_URL:-none}"
`,
    );
    const proc = spawnCli(["rules", "check", leaky], daemonEnv);
    expect(await proc.exited).toBe(1);
    const file = join(leaky, "rules.yaml");
    const lines = proc.stderr().trim().split("\n");
    const refused = (at: string, name: string) =>
      `${file}:${at} rule \`leak\`: \`\${${name}}\` is a flightwatch setting, which rule files may not read`;
    expect(lines.some((l) => l.startsWith(refused("6:18", "FLIGHT_API_TOKEN")))).toBe(true);
    expect(lines.some((l) => l.startsWith(refused("7:19", "REDIS_URL")))).toBe(true);
    expect(lines.some((l) => l.startsWith(refused("7:19", "SMTP_URL")))).toBe(true);
    for (const leak of LEAKS) expect(proc.stdout() + proc.stderr()).not.toContain(leak);
  }, 20_000);

  it("check: a variable set in the environment is still no rule variable without RULE_", async () => {
    const rules = await rulesDir(
      "home",
      `rules:\n  - id: home\n    description: "\${HOME_DIR}"\n    channels: [{ type: console }]\n`,
    );
    const proc = spawnCli(["rules", "check", rules], { HOME_DIR: "/home/ops" });
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toContain(
      `${join(rules, "rules.yaml")}:3:18 rule \`home\`: \`\${HOME_DIR}\` is not a rule variable — define it in the --vars-file, or name it RULE_HOME_DIR in the environment`,
    );
    const renamed = await rulesDir(
      "home-renamed",
      `rules:\n  - id: home\n    description: "\${RULE_HOME_DIR}"\n    channels: [{ type: console }]\n`,
    );
    const ok = spawnCli(["rules", "check", renamed], { RULE_HOME_DIR: "/home/ops" });
    expect(await ok.exited, ok.stderr()).toBe(0);
  }, 20_000);

  it("a vars file defining a setting is refused at its line, naming the variable", async () => {
    const vars = join(dir, "settings.env");
    await writeFile(vars, `OPS_TEAM=pier-d\nFLIGHT_API_TOKEN=${API_TOKEN}\n`);
    const rules = await rulesDir(
      "plain",
      "rules:\n  - id: plain\n    channels: [{ type: console }]\n",
    );
    const proc = spawnCli(["rules", "check", rules, "--vars-file", vars]);
    expect(await proc.exited).toBe(2);
    expect(proc.stderr()).toContain(
      `${vars}:2 FLIGHT_API_TOKEN: is a variable of flightwatch itself`,
    );
    expect(proc.stderr()).not.toContain(API_TOKEN);
  }, 20_000);

  it("test: vars-file names and RULE_ names substitute, the environment wins, secrets never print", async () => {
    const vars = join(dir, "rules.env");
    await writeFile(
      vars,
      [
        "RULE_OPS_TEAM=team-from-file",
        "DESK=desk-from-file",
        `PARTNER_PATH=${PATH_PART}`,
        `PARTNER_SIGNING=${HOOK_SECRET}`,
        `SLACK_BOT_TOKEN=${BOT_TOKEN}`,
      ].join("\n"),
    );
    const rules = await rulesDir(
      "secrets",
      `rules:
  - id: partner
    description: "for \${RULE_OPS_TEAM} at \${DESK}; path \${PARTNER_PATH}, token \${RULE_OPS_TOKEN}"
    flights: { flight: KL1001 }
    changes: [gate]
    channels:
      - type: email
        to: [ops@example.com]
        subject: "\${RULE_OPS_TEAM} \${RULE_OPS_TOKEN} \${PARTNER_PATH} \${PARTNER_SIGNING}"
      - type: webhook
        url: "https://partner.example.com/hooks/\${PARTNER_PATH}"
        secret: "\${PARTNER_SIGNING}"
      - type: console
      - type: slack
        token: "\${SLACK_BOT_TOKEN}"
        channel: C0123ABCDEF
        template: "{flight} via \${SLACK_BOT_TOKEN}"
`,
    );
    const env = {
      ...daemonEnv,
      RULE_OPS_TEAM: "team-from-env",
      // Listed in the vars file, but not a RULE_ name: the file's value, not this.
      DESK: "desk-from-env",
      RULE_OPS_TOKEN: OPS_TOKEN,
    };
    const args = [
      ...["rules", "test", rules, "--vars-file", vars, "--before", join(dir, "before.json")],
      ...["--after", join(dir, "after.json"), "--now", "2026-11-21T08:30"],
    ];
    const text = spawnCli(args, env);
    const json = spawnCli([...args, "--json"], env);
    expect(await text.exited, text.stderr()).toBe(0);
    expect(await json.exited, json.stderr()).toBe(0);
    const out = text.stdout();
    // Not secret: a variable in a description or subject prints, the environment's value first.
    expect(out).toContain("for team-from-env at desk-from-file; path [redacted], token [redacted]");
    expect(out).not.toContain("team-from-file");
    // A Slack channel through the Web API: where it goes, and both of its messages.
    expect(out).toContain("slack → Slack channel C0123ABCDEF (Web API)");
    expect(out).toContain("living message: KL1001 to WAW, departs");
    expect(out).toContain("thread reply: KL1001 via [redacted]");
    expect(JSON.parse(json.stdout()).matches[0].channels[0].payload.subject).toBe(
      "team-from-env [redacted] [redacted] [redacted]",
    );
    for (const leak of LEAKS) {
      expect(out).not.toContain(leak);
      expect(json.stdout()).not.toContain(leak);
      expect(text.stderr() + json.stderr()).not.toContain(leak);
    }
  }, 20_000);
});

describe("the example rules in rules/", () => {
  it("are valid with the demo values of their variables", async () => {
    const root = new URL("../../", import.meta.url).pathname;
    const vars = readRuleVariables({}, join(root, "rules/demo.env"));
    const load = await loadRuleDir(join(root, "rules"), { vars, zone: ZONE });
    expect(load.problems).toEqual([]);
    // Files in name order, rules in file order.
    expect(load.rules.map((r) => r.id)).toEqual([
      "partner-feed",
      "pier-d-departures",
      "cancellations-and-diversions",
      "long-delays-klm",
      "gate-desk-board",
      "anna-kl1001",
      "ben-meets-kl1002",
    ]);
  });
});
