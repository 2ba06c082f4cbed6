/**
 * docs/operations.md against the code it documents: the configuration table lists
 * every variable of src/config/config-variables.ts with its default, and the metrics
 * tables every metric FlightwatchMetrics registers — no more, no fewer.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "../../src/config/config-variables.js";
import { FlightwatchMetrics } from "../../src/ops/flightwatch-metrics.js";

const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");

/** The text of a `## ` section, up to the next one. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`docs/operations.md has no section "${title}"`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** First cells of the table rows of a section (`| \`NAME\` | …` → NAME). */
function firstCells(text: string): string[] {
  return [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

describe("docs/operations.md", () => {
  it("lists every configuration variable with its default, and no other", () => {
    const text = section("Configuration");
    expect(firstCells(text).sort()).toEqual(CONFIG_VARIABLES.map((v) => v.name).sort());
    for (const variable of CONFIG_VARIABLES) {
      const row = new RegExp(`^\\| \`${variable.name}\` \\| ([^|]+) \\|`, "m").exec(text);
      const shown = row?.[1]?.trim();
      expect(shown, variable.name).toBe(
        variable.default === undefined ? "—" : `\`${variable.default}\``,
      );
    }
  });

  it("documents every metric flightwatch registers, and no other", async () => {
    const metrics = new FlightwatchMetrics({ defaultMetrics: false });
    const registered = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name);
    const documented = firstCells(section("Metrics")).filter((name) =>
      name.startsWith("flightwatch_"),
    );
    expect(documented.sort()).toEqual(registered.sort());
  });
});
