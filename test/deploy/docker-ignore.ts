/**
 * `.dockerignore` as the Docker builder reads it (moby/patternmatcher): patterns
 * relative to the context root, `*` and `?` within one path segment, `**` across
 * segments, `!` re-including, the last matching pattern deciding, and a pattern that
 * matches a directory covering everything below it.
 */

interface Pattern {
  exclusion: boolean;
  regex: RegExp;
  /** The cleaned pattern, split into segments (to decide whether a directory may be skipped). */
  segments: string[];
}

/** A parsed .dockerignore. */
export class DockerIgnore {
  readonly #patterns: Pattern[];

  constructor(text: string) {
    this.#patterns = [];
    for (const raw of text.split(/\r?\n/)) {
      let line = raw.trim();
      if (line === "" || line.startsWith("#")) continue;
      const exclusion = line.startsWith("!");
      if (exclusion) line = line.slice(1).trim();
      const clean = cleanPath(line);
      if (clean === "") continue;
      this.#patterns.push({ exclusion, regex: patternRegex(clean), segments: clean.split("/") });
    }
  }

  /** Whether the context path (slash-separated, relative to the root) is left out. */
  ignores(path: string): boolean {
    const clean = cleanPath(path);
    const parents = ancestors(clean);
    let ignored = false;
    for (const pattern of this.#patterns) {
      const match =
        pattern.regex.test(clean) || parents.some((parent) => pattern.regex.test(parent));
      if (match) ignored = !pattern.exclusion;
    }
    return ignored;
  }

  /**
   * Whether an ignored directory must still be walked because an exception pattern
   * could re-include something inside it (otherwise it is skipped whole, as the
   * builder does with node_modules).
   */
  mayIncludeUnder(dir: string): boolean {
    const segments = cleanPath(dir).split("/");
    return this.#patterns.some(
      (pattern) => pattern.exclusion && couldMatchBelow(pattern.segments, segments),
    );
  }
}

function couldMatchBelow(pattern: string[], dir: string[]): boolean {
  for (let i = 0; i < dir.length; i++) {
    const part = pattern[i];
    if (part === undefined) return false;
    if (part.includes("**")) return true;
    if (!patternRegex(part).test(dir[i]!)) return false;
  }
  return true;
}

/** `a/b/c` → [`a`, `a/b`]. */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Like Go's filepath.Clean on a relative slash path, with a leading `/` dropped. */
function cleanPath(path: string): string {
  const out: string[] = [];
  for (const part of path.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

/** The pattern as an anchored regular expression, after the rules of patternmatcher. */
function patternRegex(pattern: string): RegExp {
  let re = "^";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") {
      if (pattern[i + 1] === "*") {
        i++;
        // `**/` also matches no directory at all; `**` at the end matches anything.
        if (pattern[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else {
          re += ".*";
        }
      } else {
        re += "[^/]*";
      }
    } else if (c === "?") {
      re += "[^/]";
    } else if (c === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end === -1) re += "\\[";
      else {
        const body = pattern.slice(i + 1, end).replace(/^\^|^!/, "^");
        re += `[${body}]`;
        i = end;
      }
    } else if (c === "\\" && i + 1 < pattern.length) {
      re += escapeRegex(pattern[++i]!);
    } else {
      re += escapeRegex(c);
    }
  }
  return new RegExp(`${re}$`);
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}
