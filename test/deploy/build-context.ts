/**
 * The build context Docker would send for a directory: every file under it that its
 * .dockerignore does not leave out. Ignored directories are skipped whole unless an
 * exception pattern could re-include something inside them, so node_modules and .git
 * cost nothing.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { DockerIgnore } from "./docker-ignore.js";

/** Relative, slash-separated paths of the files in the context, sorted. */
export function contextFiles(root: string, ignore: DockerIgnore): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!ignore.ignores(path) || ignore.mayIncludeUnder(path)) walk(path);
      } else if (!ignore.ignores(path)) {
        files.push(path);
      }
    }
  };
  walk("");
  return files.sort();
}
