/**
 * Summarises a V8 .cpuprofile (bench/cpu-profile.mjs): self time by function and by
 * source file, and inclusive time of the functions named on the command line.
 * `node --import tsx bench/profile-summary.ts file.cpuprofile [top] [fn ...]`
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg, ...names] = process.argv.slice(2);
if (!file) throw new Error("usage: profile-summary.ts file.cpuprofile [top] [function ...]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const top = Number(topArg ?? 40);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const totalUs = profile.endTime - profile.startTime;
const short = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "nm:")
    .replace(/.*\/wt-watch\//, "");
const label = (n: ProfileNode) =>
  `${n.callFrame.functionName || "(anonymous)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;

const add = (map: Map<string, number>, key: string, us: number) =>
  map.set(key, (map.get(key) ?? 0) + us);
const fnSelf = new Map<string, number>();
const fileSelf = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id) as ProfileNode;
  add(fnSelf, label(n), us);
  add(fileSelf, short(n.callFrame.url) || n.callFrame.functionName, us);
}
const pct = (us: number) => `${((us / totalUs) * 100).toFixed(1).padStart(5)} %`;
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${pct(us)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
  }
};
console.log(`profile ${(totalUs / 1e6).toFixed(1)} s wall`);
print("self time by file", fileSelf);
print("self time by function", fnSelf);
// Inclusive time of named functions (a sample counts once per function on its stack).
if (names.length > 0) {
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at) as ProfileNode;
      const name = n.callFrame.functionName;
      if (names.includes(name) && !seen.has(name)) {
        seen.add(name);
        add(inclusive, name, us);
      }
    }
  }
  print("inclusive time of the named functions", inclusive);
}
