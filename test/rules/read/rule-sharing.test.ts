/**
 * Parts shared by rules written alike (read/rule-interner.ts, `TreeReader.shared`): one
 * frozen object for every rule that writes the part the same way, never for parts that
 * differ, never hiding a problem of a later rule, and matching exactly as unshared rules.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RuleSet } from "../../../src/rules/match/rule-matcher.js";
import { loadRuleDir } from "../../../src/rules/read/rule-loader.js";
import type { ChangeSelector, Rule } from "../../../src/rules/rule.js";
import { changeEvent, SCHEDULED } from "../event-builder.js";
import { load, ZONE } from "./rule-text.js";

/** A passenger rule as an app writes it, for `flight` on `date`, with `within` for gates. */
function passenger(id: string, flight = "KL601", date = "2026-11-21", within = "3h"): string {
  return `
  - id: ${id}
    labels: { app: pax, tier: gold }
    flights:
      flight: ${flight}
      schedule: { from: ${date}, to: ${date} }
    changes:
      - { kind: gate, within: ${within} }
      - { kind: departure_time, delay_at_least: 15m, shift_at_least: 15m }
      - cancelled
    channels:
      - type: email
        to: [${id}@example.com]
        retry: { delays: [10s, 1m], for: 1h }
    flapping: { window: 10m, action: correct }
`;
}

function rulesOf(text: string): Rule[] {
  const loaded = load(text);
  expect(loaded.problems).toEqual([]);
  return loaded.rules;
}

/** Every object in `value`, nested ones included. */
function objectsIn(value: unknown, out: object[] = []): object[] {
  if (typeof value !== "object" || value === null) return out;
  out.push(value);
  for (const inner of Object.values(value)) objectsIn(inner, out);
  return out;
}

describe("rules written alike", () => {
  it("share one frozen object per part: labels, flights, changes, flapping, a channel's retry", () => {
    const [a, b] = rulesOf(`rules:${passenger("anna")}${passenger("ben")}`) as [Rule, Rule];
    expect(b.labels).toBe(a.labels);
    expect(b.flights).toBe(a.flights);
    expect(b.changes).toBe(a.changes);
    expect(b.flapping).toBe(a.flapping);
    expect(b.channels[0]?.retry).toBe(a.channels[0]?.retry);
    // What is the rule's own is not shared.
    expect(b.channels).not.toBe(a.channels);
    expect(b.channels[0]).not.toBe(a.channels[0]);
    const shared = [a.labels, a.flights, a.changes, a.flapping, a.channels[0]?.retry];
    const objects = shared.flatMap((part) => objectsIn(part));
    expect(objects.length).toBeGreaterThan(15);
    for (const object of objects) expect(Object.isFrozen(object)).toBe(true);
  });

  it("cannot change one rule through another (test files are strict mode: writes throw)", () => {
    const [a, b] = rulesOf(`rules:${passenger("anna")}${passenger("ben")}`) as [Rule, Rule];
    const selectors = a.changes as ChangeSelector[];
    expect(() => selectors.push({ name: "gate", kinds: ["gate"] })).toThrow(TypeError);
    expect(() => {
      (selectors[0] as ChangeSelector).withinMs = 1;
    }).toThrow(TypeError);
    expect(() => {
      a.labels.app = "changed";
    }).toThrow(TypeError);
    expect(() => {
      (a.flights.flights as string[])[0] = "KL999";
    }).toThrow(TypeError);
    expect(b.changes?.[0]?.withinMs).toBe(3 * 3_600_000);
    expect(b.changes).toHaveLength(3);
    expect(b.labels).toEqual({ app: "pax", tier: "gold" });
    expect(b.flights.flights).toEqual(["KL601"]);
  });

  it("do not share what is written differently, however close", () => {
    const [a, b, c, d] = rulesOf(
      `rules:${passenger("anna")}${passenger("ben", "KL602")}${passenger("cem", "KL601", "2026-11-22")}${passenger("dan", "KL601", "2026-11-21", "4h")}`,
    ) as [Rule, Rule, Rule, Rule];
    expect(b.flights).not.toBe(a.flights);
    expect(b.flights.flights).toEqual(["KL602"]);
    expect(c.flights).not.toBe(a.flights);
    expect(c.flights.schedule).not.toEqual(a.flights.schedule);
    expect(d.changes).not.toBe(a.changes);
    expect(d.changes?.[0]?.withinMs).toBe(4 * 3_600_000);
    expect(d.changes?.slice(1)).toEqual(a.changes?.slice(1));
    // Texts that run together alike (key, value, key, value …) are told apart.
    const [e, f] = rulesOf(`rules:
  - { id: e, labels: { x: a, y: b }, channels: [{ type: console }] }
  - { id: f, labels: { x: asysb }, channels: [{ type: console }] }
`) as [Rule, Rule];
    expect(e.labels).toEqual({ x: "a", y: "b" });
    expect(f.labels).toEqual({ x: "asysb" });
  });

  it("report a problem of a part in every rule that writes it", () => {
    const bad = `
    labels: { ok: yes, "not a label": x }
    changes: [gate, { kind: gate, within: soon }]
    channels: [{ type: console }]`;
    const loaded = load(`rules:\n  - id: one${bad}\n  - id: two${bad}\n`);
    expect(loaded.rules).toEqual([]);
    const problems = loaded.problems.map((p) => `${p.ruleId} ${p.path}`);
    expect(problems).toEqual([
      "one rules[0].labels.not a label",
      "one rules[0].changes[1].within",
      "two rules[1].labels.not a label",
      "two rules[1].changes[1].within",
    ]);
  });

  it("share across the files of a directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fw-rule-sharing-"));
    try {
      await writeFile(join(dir, "a.yaml"), `rules:${passenger("anna")}`);
      await writeFile(join(dir, "b.yaml"), `rules:${passenger("ben")}`);
      const loaded = await loadRuleDir(dir, { vars: { values: {} }, zone: ZONE });
      expect(loaded.problems).toEqual([]);
      const [a, b] = loaded.rules as [Rule, Rule];
      expect(b.changes).toBe(a.changes);
      expect(b.flights).toBe(a.flights);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("match as the same rules unshared do", () => {
    // KL601 (codeshare DL9341) departs at SCHEDULED on 2026-11-21, two hours from now.
    const rules = rulesOf(
      `rules:${passenger("anna")}${passenger("ben", "DL9341")}${passenger("cem", "KL602")}${passenger("dan", "KL601", "2026-11-22")}${passenger("eve", "KL601", "2026-11-21", "1h")}`,
    );
    const unshared: Rule[] = structuredClone(rules);
    expect(Object.isFrozen(unshared[0]?.changes)).toBe(false);
    const events = [
      changeEvent(),
      changeEvent({
        kind: "time",
        field: "publicEstimatedOffBlockTime",
        old: SCHEDULED,
        new: SCHEDULED + 20 * 60_000,
        delayMinutes: 20,
        shiftMinutes: 20,
      }),
      changeEvent({ kind: "state", field: "publicFlightState", action: "added", state: "CNX" }),
    ];
    const now = SCHEDULED - 2 * 3_600_000;
    const matched = (set: RuleSet) =>
      set.match(events, now).map((m) => `${m.event.kind} ${m.rule.id} ${m.selector?.name}`);
    const expected = [
      "gate anna gate",
      "gate ben gate",
      "time anna departure_time",
      "time ben departure_time",
      "time eve departure_time",
      "state anna cancelled",
      "state ben cancelled",
      "state eve cancelled",
    ];
    expect(matched(new RuleSet(rules, { zone: ZONE }))).toEqual(expected);
    expect(matched(new RuleSet(unshared, { zone: ZONE }))).toEqual(expected);
  });
});
