/**
 * Keeps the live rule set in step with the rules directory while the daemon runs.
 * A change to the directory (seen by fs.watch, and by a periodic check of the files'
 * names, sizes and modification times for file systems where fs.watch is blind)
 * reloads the whole set. A set with any problem is reported and not taken: the last
 * good set stays live, so a half-saved or mistyped edit never switches alerts off.
 */
import { type FSWatcher, watch } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { RuleInvalidError, type RuleProblem } from "../../errors.js";
import type { Rule } from "../rule.js";

/** What a load of the directory gave (the loader's result, see rule-loader.ts). */
export interface RuleDirLoad {
  rules: Rule[];
  problems: RuleProblem[];
  files: string[];
}

/** What a RuleWatcher watches, how it loads and builds, and whom it tells. */
export interface RuleWatcherOptions<S> {
  dir: string;
  /** Loads and validates the directory. */
  load: (dir: string) => Promise<RuleDirLoad>;
  /** Builds what the rest of the daemon uses (the matcher's RuleSet) from valid rules. */
  build: (rules: Rule[]) => S;
  /** A good set was taken (also called for the first load). */
  onReload?: (info: { rules: number; files: string[] }) => void;
  /** A reload found problems; the last good set stays live. */
  onProblems?: (problems: readonly RuleProblem[]) => void;
  /** Wait for changes to settle before reloading (default 200 ms). */
  debounceMs?: number;
  /** Period of the safety-net check of the directory (default 2 s; 0 = off). */
  checkEveryMs?: number;
}

/** The live rule set, reloaded on change. */
export class RuleWatcher<S> {
  readonly #options: RuleWatcherOptions<S>;
  #current: S;
  #signature: string;
  #fsWatcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #reloading: Promise<boolean> | undefined;
  #again = false;
  #closed = false;

  private constructor(options: RuleWatcherOptions<S>, current: S, signature: string) {
    this.#options = options;
    this.#current = current;
    this.#signature = signature;
  }

  /**
   * Loads the directory and starts watching it. Rejects with RuleInvalidError when
   * the first load has problems: there is no good set to fall back on.
   */
  static async start<S>(options: RuleWatcherOptions<S>): Promise<RuleWatcher<S>> {
    const signature = await dirSignature(options.dir);
    const load = await options.load(options.dir);
    if (load.problems.length > 0) throw new RuleInvalidError(load.problems);
    const watcher = new RuleWatcher(options, options.build(load.rules), signature);
    options.onReload?.({ rules: load.rules.length, files: load.files });
    watcher.#watch();
    return watcher;
  }

  /** The set in force. */
  get current(): S {
    return this.#current;
  }

  /**
   * Reloads now (also what a change triggers, and what SIGHUP may call). Resolves to
   * whether a new set was taken. Reloads never overlap: one asked for during another
   * runs after it.
   */
  reload(): Promise<boolean> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      let taken = false;
      do {
        this.#again = false;
        taken = (await this.#reloadOnce()) || taken;
      } while (this.#again && !this.#closed);
      return taken;
    })().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /** Stops watching; the current set stays readable. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#fsWatcher?.close();
    clearInterval(this.#timer);
    clearTimeout(this.#debounce);
    await this.#reloading;
  }

  async #reloadOnce(): Promise<boolean> {
    const signature = await dirSignature(this.#options.dir);
    const load = await this.#options.load(this.#options.dir);
    this.#signature = signature;
    if (load.problems.length > 0) {
      this.#options.onProblems?.(load.problems);
      return false;
    }
    this.#current = this.#options.build(load.rules);
    this.#options.onReload?.({ rules: load.rules.length, files: load.files });
    return true;
  }

  #watch(): void {
    try {
      this.#fsWatcher = watch(this.#options.dir, () => this.#changed());
      // A directory removed or unreadable: the periodic check notices when it is back.
      this.#fsWatcher.on("error", () => this.#fsWatcher?.close());
    } catch {
      this.#fsWatcher = undefined;
    }
    const every = this.#options.checkEveryMs ?? 2000;
    if (every > 0) {
      this.#timer = setInterval(() => {
        void dirSignature(this.#options.dir).then((signature) => {
          if (signature !== this.#signature) this.#changed();
        });
      }, every);
      this.#timer.unref();
    }
  }

  #changed(): void {
    if (this.#closed) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      void this.reload().catch((err: unknown) => {
        this.#options.onProblems?.([
          {
            file: this.#options.dir,
            line: 0,
            column: 0,
            path: "",
            message: `reload failed: ${err instanceof Error ? err.message : String(err)}`,
          },
        ]);
      });
    }, this.#options.debounceMs ?? 200);
    this.#debounce.unref();
  }
}

/** Names, sizes and modification times of the directory's rule files: changes when they do. */
async function dirSignature(dir: string): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => /\.(ya?ml|json)$/i.test(n)).sort();
  } catch (err) {
    return `unreadable:${(err as NodeJS.ErrnoException).code ?? "error"}`;
  }
  const parts = await Promise.all(
    names.map(async (name) => {
      try {
        const s = await stat(join(dir, name));
        return `${name}:${s.size}:${s.mtimeMs}`;
      } catch {
        return `${name}:gone`;
      }
    }),
  );
  return parts.join("|");
}
