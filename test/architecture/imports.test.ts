/**
 * The shape of the code, as docs/architecture.md draws it: imports run down the data
 * flow (poll → diff → outbox → dispatch → deliver) or into shared lower layers, never
 * back up into a later stage, the composition root (src/pipeline), the daemon or the
 * CLI; a CLI file parses flags and never imports another command; what `flightwatch
 * --help` loads is the commands' definitions, not their work. Read from the source
 * text, so it fails on the import that breaks it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SRC = join(ROOT, "src");

/**
 * The composition layers, outermost first: a folder imports only the layers after its
 * own (the CLI the root and the daemon, the daemon the root), never one before it.
 */
const LAYERS = ["src/cli", "src/demo", "src/daemon", "src/pipeline"];

/** Stage folders in data-flow order: a stage never imports a later one. */
const STAGES = ["src/detect", "src/dispatch", "src/deliver"];

/** Shared lower layers: they serve the stages and import none of them. */
const SHARED = ["src/api", "src/diff", "src/rules", "src/time", "src/log", "src/outbound"];

interface Edge {
  from: string;
  to: string;
}

/** Every import between files of src/, as paths relative to the repository. */
function importsOfSource(): Edge[] {
  const edges: Edge[] = [];
  for (const file of tsFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    for (const spec of specifiers(text)) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
      edges.push({ from: rel(file), to: rel(target) });
    }
  }
  return edges;
}

/** The module specifiers of static imports, re-exports and dynamic imports. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\bfrom\s+"([^"]+)"/g,
    /\bimport\s*\(\s*"([^"]+)"\s*\)/g,
    /^\s*import\s+"([^"]+)"/gm,
  ];
  for (const pattern of patterns)
    for (const m of text.matchAll(pattern)) found.push(m[1] as string);
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * The command a CLI file belongs to: `src/cli/rules-command.ts` (its definition) and
 * `src/cli/rules-action.ts` (its work, loaded when it runs) are both `rules`'.
 */
const commandOf = (path: string): string | undefined =>
  /^src\/cli\/(.+)-(?:command|action)\.ts$/.exec(path)?.[1];

const rel = (path: string): string => relative(ROOT, path).split("\\").join("/");
/** `src/detect/watch.ts` → `src/detect`; a file directly in src/ is its own layer. */
const folderOf = (path: string): string => path.split("/").slice(0, 2).join("/");

/** The imports that break the shape, as `from -> to (why)` lines. */
function violations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  const layer = (folder: string) => {
    const at = LAYERS.indexOf(folder);
    return at === -1 ? LAYERS.length : at;
  };
  for (const { from, to } of edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    const [mine, theirs] = [commandOf(from), commandOf(to)];
    if (mine !== undefined && theirs !== undefined && mine !== theirs) {
      out.push(`${from} -> ${to} (a command imports another command)`);
    } else if (a !== b && layer(b) < LAYERS.length && layer(b) <= layer(a)) {
      out.push(
        `${from} -> ${to} (${b === "src/cli" ? "a stage imports the CLI" : "imports a composing layer"})`,
      );
    } else if (SHARED.includes(a) && STAGES.includes(b)) {
      out.push(`${from} -> ${to} (a shared layer imports a stage)`);
    } else if (STAGES.includes(a) && STAGES.indexOf(b) > STAGES.indexOf(a)) {
      out.push(
        `${from} -> ${to} (${a === "src/detect" ? "detection" : "a stage"} imports a later stage)`,
      );
    }
  }
  return out;
}

describe("the imports of src/", () => {
  it("run down the data flow: no stage imports the CLI or the root, no command another, no stage a later one", () => {
    expect(violations(importsOfSource())).toEqual([]);
  });

  it("are all found: static, re-exported, dynamic and side-effect imports", () => {
    const text = `import { a } from "./a.js";\nexport { b } from "../b.js";\nconst c = await import("./c.js");\nimport "./d.js";\nimport type { E } from "./e.js";`;
    expect(specifiers(text).sort()).toEqual(["../b.js", "./a.js", "./c.js", "./d.js", "./e.js"]);
  });

  it("would catch each kind of import that breaks the shape", () => {
    expect(
      violations([
        { from: "src/deliver/webhook-sender.ts", to: "src/cli/version.ts" },
        { from: "src/cli/run-command.ts", to: "src/cli/watch-command.ts" },
        { from: "src/detect/detector.ts", to: "src/dispatch/dispatcher.ts" },
        { from: "src/dispatch/dispatcher.ts", to: "src/deliver/notifier.ts" },
        { from: "src/pipeline/pipeline.ts", to: "src/daemon/daemon.ts" },
        { from: "src/detect/poll-loop.ts", to: "src/pipeline/pipeline.ts" },
        { from: "src/cli/run-command.ts", to: "src/cli/flag-values.ts" },
        { from: "src/cli/run-command.ts", to: "src/daemon/run-daemon.ts" },
        { from: "src/daemon/daemon.ts", to: "src/pipeline/pipeline.ts" },
        { from: "src/pipeline/pipeline.ts", to: "src/deliver/notifier.ts" },
        { from: "src/deliver/notifier.ts", to: "src/dispatch/alert.ts" },
        { from: "src/dispatch/dispatcher.ts", to: "src/store/outbox-consumer.ts" },
        { from: "src/rules/read/retry-reader.ts", to: "src/deliver/retry-schedule.ts" },
        { from: "src/deliver/notifier.ts", to: "src/rules/retry-schedule.ts" },
        { from: "src/cli/rules-action.ts", to: "src/cli/rules-command.ts" },
        { from: "src/cli/config-action.ts", to: "src/cli/rules-action.ts" },
      ]),
    ).toEqual([
      "src/deliver/webhook-sender.ts -> src/cli/version.ts (a stage imports the CLI)",
      "src/cli/run-command.ts -> src/cli/watch-command.ts (a command imports another command)",
      "src/detect/detector.ts -> src/dispatch/dispatcher.ts (detection imports a later stage)",
      "src/dispatch/dispatcher.ts -> src/deliver/notifier.ts (a stage imports a later stage)",
      "src/pipeline/pipeline.ts -> src/daemon/daemon.ts (imports a composing layer)",
      "src/detect/poll-loop.ts -> src/pipeline/pipeline.ts (imports a composing layer)",
      "src/rules/read/retry-reader.ts -> src/deliver/retry-schedule.ts (a shared layer imports a stage)",
      "src/cli/config-action.ts -> src/cli/rules-action.ts (a command imports another command)",
    ]);
  });
});

/** npm packages that `flightwatch --help` and `--version` may load. */
const HELP_PACKAGES = new Set(["commander"]);

/**
 * The specifiers a module loads when it is loaded: static imports and re-exports, not
 * `import type` / `export type` (erased) nor `import()` (loaded when it runs).
 */
function loadedSpecifiers(text: string): string[] {
  const found: string[] = [];
  const clause = /^\s*(?:import|export)\s+(type\s+)?[\w$*\s{},]*?\bfrom\s+"([^"]+)"/gm;
  for (const m of text.matchAll(clause)) if (m[1] === undefined) found.push(m[2] as string);
  for (const m of text.matchAll(/^\s*import\s+"([^"]+)"/gm)) found.push(m[1] as string);
  return found;
}

/** The files of src/ and the npm packages that loading `entry` loads. */
function loadedBy(entry: string): {
  files: Set<string>;
  packages: Map<string, string>;
} {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of loadedSpecifiers(readFileSync(join(ROOT, file), "utf8"))) {
      if (spec.startsWith(".")) {
        visit(rel(resolve(dirname(join(ROOT, file)), spec).replace(/\.js$/, ".ts")));
      } else if (!spec.startsWith("node:")) {
        const name = spec
          .split("/")
          .slice(0, spec.startsWith("@") ? 2 : 1)
          .join("/");
        if (!packages.has(name)) packages.set(name, file);
      }
    }
  };
  visit(entry);
  return { files, packages };
}

describe("what `flightwatch --help` loads", () => {
  it("is the commands' definitions: no package beyond commander, no action module", () => {
    const { files, packages } = loadedBy("src/cli/main.ts");
    const heavy = [...packages].filter(([name]) => !HELP_PACKAGES.has(name));
    expect(heavy.map(([name, file]) => `${name} (loaded by ${file})`)).toEqual([]);
    expect([...files].filter((f) => /-action\.ts$/.test(f))).toEqual([]);
  });

  it("is read from the imports that load: not `import type`, not `import()`", () => {
    const text = `import { a } from "./a.js";\nexport { b } from "../b.js";\nconst c = await import("./c.js");\nimport "./d.js";\nimport type { E } from "./e.js";\nimport {\n  type F,\n  g,\n} from "./g.js";\nexport type { H } from "./h.js";`;
    expect(loadedSpecifiers(text).sort()).toEqual(["../b.js", "./a.js", "./d.js", "./g.js"]);
  });
});

describe("the imports of bench/", () => {
  /** Every import of a file under bench/ that leads into test/ or back to the runner. */
  function benchViolations(): string[] {
    const out: string[] = [];
    for (const file of tsFiles(join(ROOT, "bench"))) {
      for (const spec of specifiers(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const target = rel(resolve(dirname(file), spec).replace(/\.js$/, ".ts"));
        if (target.startsWith("test/")) out.push(`${rel(file)} -> ${target} (bench imports test/)`);
        if (target === "bench/run.ts")
          out.push(`${rel(file)} -> ${target} (a loop with the runner)`);
      }
    }
    return out;
  }

  it("reach nothing in test/ (shared rigs live in bench/support/) and never the runner", () => {
    expect(benchViolations()).toEqual([]);
  });
});
