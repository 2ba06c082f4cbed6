/**
 * Byte sizes as people write them in settings (`32MB`, `512KB`, `1GB`): always with a
 * unit, since a bare `32` could mean bytes or megabytes. KB, MB and GB count in 1024s
 * (32MB = 33,554,432 bytes), as memory is sized; KiB, MiB and GiB are the same units.
 */
import { ConfigError } from "../errors.js";

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
const SIZE_RE = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i;

/** Bytes of a size text (`32MB`, `1.5GB`, `4096B`); throws a ConfigError naming `setting`. */
export function parseByteSize(text: string, setting: string): number {
  const match = SIZE_RE.exec(text.trim());
  const unit = match ? UNITS[(match[2] as string).toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new ConfigError(
      setting,
      `"${text}" is not a size with a unit (expected e.g. 32MB, 512KB or 1GB; KB/MB/GB count in 1024s)`,
    );
  }
  return Math.floor(Number(match[1]) * unit);
}

/** A byte count for messages: `32 MB`, `1.5 GB`, `700 B`. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ["GB", 1024 ** 3],
    ["MB", 1024 ** 2],
    ["KB", 1024],
  ] as const) {
    if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  }
  return `${bytes} B`;
}
