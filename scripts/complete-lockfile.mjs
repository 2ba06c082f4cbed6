#!/usr/bin/env node
// Completes package-lock.json with the platform-specific optional packages that npm
// left out because the registry it used did not serve them (npm then refuses its own
// lock in `npm ci` with "Missing: <pkg> from lock file"). Each added entry carries the
// os/cpu/libc guards its name encodes, so no platform ever installs a foreign binary.
// Run after any `npm install` that changes dependencies: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs";

const OS = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "netbsd",
  "openbsd",
  "sunos",
  "win32",
  "aix",
  "openharmony",
];
const CPU = ["arm64", "x64", "arm", "ia32", "ppc64", "riscv64", "s390x", "loong64", "mips64el"];

/** Guards encoded in a platform package name such as cli-linux-x64-musl. */
function guards(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const out = { cpu: [cpu], os: [os] };
  if (parts.includes("musl")) out.libc = ["musl"];
  else if (os === "linux" && parts.includes("gnu")) out.libc = ["glibc"];
  return out;
}

const path = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(path, "utf8"));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${dep}`;
    if (lock.packages[target] || lock.packages[`${key}/${target}`]) continue;
    const g = guards(dep);
    if (!g || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[target] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...g };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) =>
    a === "" ? -1 : b === "" ? 1 : a.localeCompare(b),
  ),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
