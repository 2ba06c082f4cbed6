import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { contextFiles } from "./build-context.js";
import { DockerIgnore } from "./docker-ignore.js";

describe("DockerIgnore", () => {
  it("leaves out everything but the exceptions of an allow list, directories whole", () => {
    const ignore = new DockerIgnore("*\n!src\n!package.json\n**/node_modules\n");
    expect(ignore.ignores("README.md")).toBe(true);
    expect(ignore.ignores("test/a.test.ts")).toBe(true);
    expect(ignore.ignores("package.json")).toBe(false);
    expect(ignore.ignores("src/cli/main.ts")).toBe(false);
    expect(ignore.ignores("src/node_modules/x/index.js")).toBe(true);
  });

  it("lets the last matching pattern decide", () => {
    const ignore = new DockerIgnore("*.md\n!README.md\nREADME.md\n!docs/*.md");
    expect(ignore.ignores("README.md")).toBe(true);
    expect(ignore.ignores("CHANGELOG.md")).toBe(true);
    expect(ignore.ignores("docs/a.md")).toBe(false);
  });

  it("anchors patterns at the context root; `*` stays in one segment, `**/` spans any", () => {
    const ignore = new DockerIgnore("# comment\n/dist\n./coverage/\n*.log\n**/.env\na?c\n");
    expect(ignore.ignores("dist/x.js")).toBe(true);
    expect(ignore.ignores("src/dist/x.js")).toBe(false);
    expect(ignore.ignores("coverage/index.html")).toBe(true);
    expect(ignore.ignores("npm.log")).toBe(true);
    expect(ignore.ignores("logs/npm.log")).toBe(false);
    expect(ignore.ignores(".env")).toBe(true);
    expect(ignore.ignores("rules/.env")).toBe(true);
    expect(ignore.ignores("rules/demo.env")).toBe(false);
    expect(ignore.ignores("abc")).toBe(true);
    expect(ignore.ignores("a/c")).toBe(false);
    expect(ignore.ignores("# comment")).toBe(false);
  });

  it("says when an ignored directory may still hold re-included files", () => {
    const ignore = new DockerIgnore("*\n!src\n!node_modules/keep\n");
    expect(ignore.mayIncludeUnder("node_modules")).toBe(true);
    expect(ignore.mayIncludeUnder("node_modules/other")).toBe(false);
    expect(ignore.mayIncludeUnder(".git")).toBe(false);
    expect(new DockerIgnore("*\n!**/keep").mayIncludeUnder(".git")).toBe(true);
  });
});

describe("contextFiles", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("lists the files Docker would send, skipping ignored directories", () => {
    dir = mkdtempSync(join(tmpdir(), "fw-context-"));
    for (const file of [
      "package.json",
      "src/a.ts",
      "src/.env",
      "node_modules/x/index.js",
      ".git/HEAD",
      "notes.txt",
    ]) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), "x");
    }
    const ignore = new DockerIgnore("*\n!package.json\n!src\n**/.env\n");
    expect(contextFiles(dir, ignore)).toEqual(["package.json", "src/a.ts"]);
  });
});
