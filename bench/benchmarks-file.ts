/**
 * BENCHMARKS.md: one section per benchmark (its command, the machine and date of the
 * run, its headline figures and everything it printed), and a summary of every
 * section's headlines on top. A run of some benchmarks replaces only their sections,
 * so the file can be brought up to date one benchmark at a time; each section keeps
 * the machine and date it was measured on.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { cpus, freemem, platform, release, totalmem } from "node:os";
import { connectRedis } from "../src/store/redis-connection.js";
import type { Headline } from "./benchmark.js";

/** What one benchmark printed and its headlines. */
export interface BenchSection {
  name: string;
  title: string;
  headlines: Headline[];
  output: string[];
  seconds: number;
}

/** The machine the figures come from. */
export interface Machine {
  /** One line: node, CPUs, memory, Redis, OS. */
  summary: string;
}

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const GIB = 1024 ** 3;

/** Describes this machine, with the version of the Redis at REDIS_URL. */
export async function describeMachine(): Promise<Machine> {
  let redis = "Redis unreachable";
  try {
    const client = await connectRedis(REDIS_URL, { timeoutMs: 1000 });
    try {
      const info = await client.info("server");
      redis = `Redis ${/redis_version:(\S+)/.exec(info)?.[1] ?? "?"}`;
    } finally {
      client.disconnect();
    }
  } catch {
    // Reported as unreachable; the benchmarks that need Redis will say more.
  }
  const cpu = cpus();
  const summary = [
    `node ${process.version}`,
    `${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"}`,
    `${(totalmem() / GIB).toFixed(1)} GiB RAM (${(freemem() / GIB).toFixed(1)} free)`,
    redis,
    `${platform()} ${release()}`,
  ].join(", ");
  return { summary };
}

const START = (name: string) => `<!-- bench:${name}:start -->`;
const END = (name: string) => `<!-- bench:${name}:end -->`;
const SECTION = /<!-- bench:([\w-]+):start -->\n([\s\S]*?)<!-- bench:\1:end -->/g;
const HEADLINES = /<!-- headlines: (.*) -->/;

const HEADER = `# Benchmarks

Figures measured by \`npm run bench\` (all of them, about 12 minutes on 2 cores) or
\`npm run bench -- <name>\` (the benchmarks whose name contains \`<name>\`), which print
them and write their sections of this file. Each section names the machine and the
date it was measured on. Figures are measured, never asserted in tests: a shared
machine makes timings vary by ±20 % between runs. Redis runs on the same machine as
the benchmark unless a section says otherwise.
`;

/** Replaces (or adds) the sections of `sections` in the file and rebuilds its summary. */
export async function updateBenchmarksFile(
  file: string,
  sections: BenchSection[],
  machine: Machine,
  when: Date,
): Promise<void> {
  const kept = new Map<string, string>();
  if (existsSync(file)) {
    for (const match of (await readFile(file, "utf8")).matchAll(SECTION)) {
      kept.set(match[1] as string, match[2] as string);
    }
  }
  for (const section of sections) kept.set(section.name, renderSection(section, machine, when));
  const bodies = [...kept.entries()];
  const summary = summaryTable(bodies.map(([name, body]) => [name, headlinesOf(body)] as const));
  const text = [
    HEADER,
    "## Summary\n",
    summary,
    ...bodies.map(([name, body]) => `${START(name)}\n${body}${END(name)}\n`),
  ].join("\n");
  await writeFile(file, text);
}

function renderSection(section: BenchSection, machine: Machine, when: Date): string {
  const lines = [
    `<a id="${section.name}"></a>`,
    "",
    `## ${section.title}`,
    "",
    `\`npm run bench -- ${section.name}\` — ${when.toISOString().slice(0, 16).replace("T", " ")} UTC, ${Math.round(section.seconds)} s`,
    "",
    `Machine: ${machine.summary}.`,
    "",
    `<!-- headlines: ${JSON.stringify(section.headlines)} -->`,
  ];
  if (section.headlines.length > 0) lines.push("", headlineRows(section.headlines));
  lines.push("", "```text", ...section.output.map((l) => l.trimEnd()), "```", "");
  return `${lines.join("\n")}\n`;
}

function headlinesOf(body: string): Headline[] {
  const json = HEADLINES.exec(body)?.[1];
  if (json === undefined) return [];
  try {
    return JSON.parse(json) as Headline[];
  } catch {
    return [];
  }
}

function headlineRows(headlines: readonly Headline[], name?: string): string {
  const head = name
    ? "| benchmark | figure | measured | aim |\n|---|---|---|---|"
    : "| figure | measured | aim |\n|---|---|---|";
  const rows = headlines.map((h) => {
    const aim =
      h.aim === undefined ? "—" : `${h.aim}${h.met === undefined ? "" : h.met ? " ✔" : " ✘"}`;
    return `| ${name ? `${name} | ` : ""}${h.figure} | ${h.value} | ${aim} |`;
  });
  return [head, ...rows].join("\n");
}

function summaryTable(sections: ReadonlyArray<readonly [string, Headline[]]>): string {
  const rows: string[] = ["| benchmark | figure | measured | aim |", "|---|---|---|---|"];
  for (const [name, headlines] of sections) {
    for (const line of headlineRows(headlines, `[${name}](#${name})`).split("\n").slice(2)) {
      rows.push(line);
    }
  }
  return rows.length > 2 ? `${rows.join("\n")}\n` : "No headline figures yet.\n";
}
