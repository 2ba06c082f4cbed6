/**
 * What the npm package ships, as `npm pack` lists it (without packing or running
 * `prepare`): the published contract of webhook bodies is part of it, so a receiver can
 * validate against the schema of the version it runs.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("the npm package", () => {
  it("ships schemas/webhook.schema.json beside bin, dist and the example rules", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: new URL("../..", import.meta.url),
      maxBuffer: 16 * 1024 * 1024,
    });
    const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const paths = (pack?.files ?? []).map((f) => f.path);
    expect(paths).toContain("schemas/webhook.schema.json");
    expect(paths).toContain("bin/flightwatch.js");
    expect(paths).toContain("rules/integration.yaml");
  }, 60_000);
});
