/**
 * Property: a random valid rule, written out by `yaml` (in random styles) or as JSON,
 * loads back as the normalised Rule an independent oracle expects, with its source
 * position on its `id`.
 */
import fc from "fast-check";
import { DateTime } from "luxon";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseRuleFile } from "../../../src/rules/read/rule-loader.js";
import { DEFAULT_RETRY_SCHEDULE } from "../../../src/rules/retry-schedule.js";
import type {
  ChangeSelector,
  ChannelSpec,
  FlightFilter,
  RetrySchedule,
  Rule,
} from "../../../src/rules/rule.js";
import { yamlStyle } from "../rule-arbitraries.js";
import { ZONE } from "./rule-text.js";

/** A raw value for the file and the normalised value the loader must make of it. */
interface Case<R, N> {
  raw: R;
  norm: N;
}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const letter = fc.constantFrom(...letters);
const digit = fc.constantFrom(..."0123456789");
const code = (n: number) => fc.array(letter, { minLength: n, maxLength: n }).map((a) => a.join(""));
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((b) => [...text].map((c, i) => (b[i] ? c.toLowerCase() : c)).join(""));
/** A list of distinct cases, written as a single value when there is one and the coin says so. */
function listOf<R, N>(item: fc.Arbitrary<Case<R, N>>, max = 3): fc.Arbitrary<Case<R | R[], N[]>> {
  return fc
    .tuple(
      fc.uniqueArray(item, {
        minLength: 1,
        maxLength: max,
        selector: (c) => JSON.stringify(c.norm),
      }),
      fc.boolean(),
    )
    .map(([items, single]) => ({
      raw: single && items.length === 1 ? (items[0] as Case<R, N>).raw : items.map((c) => c.raw),
      norm: items.map((c) => c.norm),
    }));
}

const flight: fc.Arbitrary<Case<string, string>> = fc
  .tuple(
    fc.oneof(
      code(2),
      code(3),
      fc.tuple(letter, digit).map(([a, b]) => a + b),
    ),
    fc.integer({ min: 1, max: 9999 }),
    fc.constantFrom("", "A", "D"),
    fc.nat({ max: 2 }),
    fc.boolean(),
  )
  .chain(([designator, n, suffix, zeros, space]) =>
    randomCase(`${designator}${space ? " " : ""}${"0".repeat(zeros)}${n}${suffix}`).map((raw) => ({
      raw,
      norm: `${designator}${n}${suffix}`,
    })),
  );
const upperCode = (arb: fc.Arbitrary<string>) =>
  arb.chain((c) => randomCase(c).map((raw) => ({ raw, norm: c })));
const airport = upperCode(code(3));
const airline = upperCode(
  fc.oneof(
    code(2),
    code(3),
    fc.tuple(digit, letter).map(([a, b]) => a + b),
  ),
);
const pier = upperCode(
  fc.oneof(
    code(1),
    fc.tuple(letter, digit).map(([a, b]) => a + b),
  ),
);
const gate = fc
  .tuple(fc.array(fc.oneof(letter, digit), { minLength: 1, maxLength: 6 }), fc.boolean())
  .map(([chars, star]) => `${chars.join("")}${star ? "*" : ""}`)
  .chain((g) => randomCase(g).map((raw) => ({ raw, norm: g })));
const terminal = fc.integer({ min: 1, max: 9 }).map((n) => ({ raw: n, norm: n }));
const serviceType = upperCode(code(1));
const date = fc
  .date({
    min: new Date("2026-01-01T00:00:00Z"),
    max: new Date("2027-12-31T00:00:00Z"),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString().slice(0, 10));
const localStart = (day: string, plusDays = 0) =>
  DateTime.fromISO(day, { zone: ZONE }).plus({ days: plusDays }).toMillis();
const schedule = fc
  .tuple(date, fc.nat({ max: 3 }), fc.constantFrom("dates", "relative", "days", "from-only"))
  .map(([day, span, form]) => {
    if (form === "relative")
      return {
        raw: { from: "now", to: `+${span + 1}h` },
        norm: { from: { fromNowMs: 0 }, to: { fromNowMs: (span + 1) * 3_600_000 } },
      };
    if (form === "days")
      return {
        raw: { from: "today", to: "tomorrow" },
        norm: {
          from: { localDayOffset: 0, endOfDay: false },
          to: { localDayOffset: 1, endOfDay: true },
        },
      };
    if (form === "from-only")
      return {
        raw: { from: `${day}T06:30` },
        norm: { from: { at: DateTime.fromISO(`${day}T06:30`, { zone: ZONE }).toMillis() } },
      };
    const to = DateTime.fromISO(day).plus({ days: span }).toISODate() as string;
    return {
      raw: { from: day, to },
      norm: { from: { at: localStart(day) }, to: { at: localStart(to, 1) } },
    };
  });

type RawFilter = Record<string, unknown>;
const filterOf = (depth: number): fc.Arbitrary<Case<RawFilter, FlightFilter>> =>
  fc
    .record(
      {
        flight: listOf(flight),
        airline: listOf(airline),
        direction: fc
          .constantFrom(["departure", "D"], ["arrival", "A"], ["D", "D"], ["a", "A"])
          .map(([raw, norm]) => ({ raw, norm })),
        destination: listOf(airport),
        origin: listOf(airport),
        airport: listOf(airport),
        terminal: listOf(terminal),
        pier: listOf(pier),
        gate: listOf(gate),
        service_type: listOf(serviceType),
        operational: fc.boolean().map((b) => ({ raw: b, norm: b })),
        schedule,
        ...(depth < 2
          ? { not: filterOf(depth + 1).filter((f) => Object.keys(f.norm).length > 0) }
          : {}),
      },
      { requiredKeys: [] },
    )
    .map((parts) => {
      const raw: RawFilter = {};
      const norm: Record<string, unknown> = {};
      const names: Record<string, string> = {
        flight: "flights",
        airline: "airlines",
        destination: "destinations",
        origin: "origins",
        airport: "airports",
        terminal: "terminals",
        pier: "piers",
        gate: "gates",
        service_type: "serviceTypes",
      };
      for (const [key, c] of Object.entries(parts) as [string, Case<unknown, unknown>][]) {
        // destination holds for departures only, origin for arrivals: leave out clashes.
        if (key === "destination" && parts.direction?.norm === "A") continue;
        if (key === "origin" && parts.direction?.norm === "D") continue;
        raw[key] = c.raw;
        norm[names[key] ?? key] = c.norm;
      }
      return { raw, norm: norm as FlightFilter };
    });

const TIME_KINDS: Record<string, string[] | undefined> = {
  time: undefined,
  departure_time: ["publicEstimatedOffBlockTime", "actualOffBlockTime"],
  arrival_time: ["estimatedLandingTime", "actualLandingTime"],
  boarding_time: ["expectedTimeBoarding"],
  on_belt_time: ["expectedTimeOnBelt"],
};
const FIELD_KINDS: Record<string, string> = {
  gate: "gate",
  pier: "pier",
  belt: "belt",
  aircraft: "aircraftType",
  service_type: "serviceType",
  route: "route",
};
/** Durations up to a day (the longest group_wait and flapping window). */
const duration = fc
  .tuple(
    fc.integer({ min: 1, max: 23 }),
    fc.constantFrom(["s", 1000], ["m", 60_000], ["h", 3_600_000]),
    fc.nat({ max: 59 }),
  )
  .map(([n, [unit, ms], m]) =>
    unit === "h" && m > 0
      ? { raw: `${n}h${m}m`, norm: n * 3_600_000 + m * 60_000 }
      : { raw: `${n}${unit}`, norm: n * (ms as number) },
  );

const selector: fc.Arbitrary<Case<unknown, ChangeSelector>> = fc.oneof(
  fc.constantFrom(...Object.keys(FIELD_KINDS)).chain((name) =>
    fc
      .record(
        {
          within: duration,
          actions: fc.subarray(["assigned", "changed"], { minLength: 1 }),
          short: fc.boolean(),
        },
        { requiredKeys: ["short"] },
      )
      .map(({ within, actions, short }) => {
        const norm: ChangeSelector = { name, kinds: [FIELD_KINDS[name] as never] };
        if (short && !within && !actions) return { raw: name, norm };
        const raw: Record<string, unknown> = { kind: name };
        if (within) [raw.within, norm.withinMs] = [within.raw, within.norm];
        if (actions) [raw.actions, norm.actions] = [actions, actions as never];
        return { raw, norm };
      }),
  ),
  fc.constantFrom(...Object.keys(TIME_KINDS)).chain((name) =>
    fc
      .record({ delay: duration, shift: duration }, { requiredKeys: [] })
      .map(({ delay, shift }) => {
        const fields = TIME_KINDS[name];
        const norm: ChangeSelector = { name, kinds: ["time"], ...(fields ? { fields } : {}) };
        const raw: Record<string, unknown> = { kind: name };
        if (delay)
          [raw.delay_at_least, norm.delayAtLeastMinutes] = [delay.raw, delay.norm / 60_000];
        if (shift)
          [raw.shift_at_least, norm.shiftAtLeastMinutes] = [shift.raw, shift.norm / 60_000];
        return { raw, norm };
      }),
  ),
  fc
    .uniqueArray(fc.constantFrom("BRD", "GCL", "DEL", "LND"), { minLength: 1, maxLength: 3 })
    .chain((states) =>
      randomCase(states.join(",")).map((text) => ({
        raw: { kind: "state", states: text.split(",") },
        // Listing states takes their beginning only (docs/rules.md, `states`).
        norm: { name: "state", kinds: ["state" as const], states, actions: ["added" as const] },
      })),
    ),
  fc.constantFrom<Case<unknown, ChangeSelector>[]>(
    {
      raw: "cancelled",
      norm: { name: "cancelled", kinds: ["state"], states: ["CNX"], actions: ["added"] },
    },
    { raw: "added", norm: { name: "added", kinds: ["flight"], actions: ["added"] } },
  ),
);

const HOUR = 3_600_000;
// No `delays: []`: yaml's block style writes an empty list on a line of its own, which it cannot read.
const retry = fc.constantFrom<Case<unknown, RetrySchedule>>(
  { raw: "none", norm: { delaysMs: [], forMs: 24 * HOUR } },
  { raw: { for: "12h" }, norm: { ...DEFAULT_RETRY_SCHEDULE, forMs: 12 * HOUR } },
  {
    raw: { delays: ["10s", "1m", "5m", "30m"], for: "12h" },
    norm: { delaysMs: [10_000, 60_000, 300_000, 1_800_000], forMs: 12 * HOUR },
  },
  { raw: { delays: "1h30m", for: "7d" }, norm: { delaysMs: [1.5 * HOUR], forMs: 168 * HOUR } },
);

const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const channel: fc.Arbitrary<{
  raw: Record<string, unknown>;
  norm: Omit<ChannelSpec, "name" | "source">;
  name?: string;
}> = fc
  .tuple(
    fc.oneof(
      fc.constant({ raw: { type: "console" }, norm: { type: "console" as const } }),
      fc.webUrl({ validSchemes: ["https"] }).map((url) => ({
        raw: { type: "slack", url: url.replaceAll("$", () => "$$") },
        norm: { type: "slack" as const, url },
      })),
      fc.constantFrom("anna@example.com", "ops+gates@mail.example.org").map((to) => ({
        raw: { type: "email", to: [to], subject: "Flight {flight}" },
        norm: { type: "email" as const, to: [to], subject: "Flight {flight}" },
      })),
      fc.boolean().map((json) => ({
        raw: {
          type: "webhook",
          url: "https://partner.example.com/h",
          secret,
          ...(json ? { format: "json" } : {}),
        },
        norm: {
          type: "webhook" as const,
          url: "https://partner.example.com/h",
          secret,
          format: json ? ("json" as const) : ("cloudevents" as const),
        },
      })),
    ),
    fc.option(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { nil: undefined }),
    fc.option(retry, { nil: undefined }),
  )
  .map(([c, name, r]) => {
    const withRetry = r
      ? { raw: { ...c.raw, retry: r.raw }, norm: { ...c.norm, retry: r.norm } }
      : c;
    return name === undefined
      ? withRetry
      : { raw: { ...withRetry.raw, name: `n-${name}` }, norm: withRetry.norm, name: `n-${name}` };
  });

const labelValue = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.integer({ min: 0, max: 10_000 }),
  fc.boolean(),
);
const rule = fc
  .record(
    {
      id: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/),
      description: fc.string({ maxLength: 30 }),
      labels: fc.dictionary(fc.stringMatching(/^[A-Za-z0-9_.-]{1,10}$/), labelValue, {
        maxKeys: 3,
      }),
      enabled: fc.boolean(),
      flights: filterOf(0),
      changes: fc.array(selector, { minLength: 1, maxLength: 4 }),
      channels: fc
        .array(channel, { minLength: 1, maxLength: 3 })
        .filter(
          (cs) =>
            new Set(cs.map((c) => c.name).filter(Boolean)).size === cs.filter((c) => c.name).length,
        ),
      group_wait: duration,
      cool_down: duration,
      flapping: fc.tuple(duration, fc.constantFrom("suppress", "correct")),
    },
    { requiredKeys: ["id", "channels"] },
  )
  .map((r) => {
    const raw: Record<string, unknown> = { id: r.id };
    const counts = new Map<string, number>();
    for (const c of r.channels) counts.set(c.norm.type, (counts.get(c.norm.type) ?? 0) + 1);
    const seen = new Map<string, number>();
    const norm: Omit<Rule, "source"> = {
      id: r.id,
      labels: {},
      flights: r.flights?.norm ?? {},
      channels: r.channels.map((c) => {
        const nth = (seen.get(c.norm.type) ?? 0) + 1;
        seen.set(c.norm.type, nth);
        const name =
          c.name ?? ((counts.get(c.norm.type) ?? 0) > 1 ? `${c.norm.type}-${nth}` : c.norm.type);
        return { ...c.norm, name, source: expect.anything() } as ChannelSpec;
      }),
      groupWaitMs: r.group_wait?.norm ?? 0,
      coolDownMs: r.cool_down?.norm ?? 0,
    };
    if (r.description !== undefined) {
      // `$` must be written `$$`; what loads is the text itself.
      raw.description = r.description.replaceAll("$", () => "$$");
      norm.description = r.description;
    }
    if (r.labels) {
      raw.labels = Object.fromEntries(
        Object.entries(r.labels).map(([k, v]) => [
          k,
          typeof v === "string" ? v.replaceAll("$", () => "$$") : v,
        ]),
      );
      norm.labels = Object.fromEntries(Object.entries(r.labels).map(([k, v]) => [k, String(v)]));
    }
    if (r.enabled !== undefined) raw.enabled = r.enabled;
    if (r.flights) raw.flights = r.flights.raw;
    if (r.changes) {
      raw.changes = r.changes.map((c) => c.raw);
      norm.changes = r.changes.map((c) => c.norm);
    }
    raw.channels = r.channels.map((c) => c.raw);
    if (r.group_wait) raw.group_wait = r.group_wait.raw;
    if (r.cool_down) raw.cool_down = r.cool_down.raw;
    if (r.flapping) {
      raw.flapping = { window: r.flapping[0].raw, action: r.flapping[1] };
      norm.flapping = {
        windowMs: r.flapping[0].norm,
        action: r.flapping[1] as "suppress" | "correct",
      };
    }
    return { raw, norm, enabled: r.enabled !== false };
  });

const styles = fc.record({
  ...yamlStyle,
  json: fc.boolean(),
});

describe("rule files round-trip", () => {
  it("a random valid rule loads as its normalised form, with its id's position", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(rule, { minLength: 1, maxLength: 3, selector: (r) => r.raw.id }),
        styles,
        (rules, style) => {
          const file = style.json ? "r.json" : "r.yaml";
          const text = style.json
            ? JSON.stringify({ rules: rules.map((r) => r.raw) }, null, 2)
            : stringify({ rules: rules.map((r) => r.raw) }, { ...style, lineWidth: 0 });
          const load = parseRuleFile(text, file, { vars: { values: {} }, zone: ZONE });
          expect(load.problems).toEqual([]);
          expect(load.rules).toEqual(
            rules.filter((r) => r.enabled).map((r) => ({ ...r.norm, source: expect.anything() })),
          );
          expect(load.disabled).toEqual(rules.filter((r) => !r.enabled).map((r) => r.norm.id));
          const lines = text.split("\n");
          for (const loaded of load.rules) {
            const at = lines[loaded.source.line - 1]?.slice(loaded.source.column - 1) ?? "";
            // The id, possibly quoted, starts at the source position.
            expect(at.replace(/^["']/, "").startsWith(loaded.id)).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
