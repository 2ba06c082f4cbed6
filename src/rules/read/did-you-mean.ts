/**
 * "Did you mean …?" for misspelt keys, kinds and codes: the closest candidate by
 * Damerau-Levenshtein distance (optimal string alignment: insertions, deletions,
 * substitutions and swaps of neighbours each cost 1), ignoring case, and only when it
 * is close enough to be a plausible slip rather than a different word.
 */

/** Edit distance between two strings (optimal string alignment), case-sensitive. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  // Three rolling rows: the swap step looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] as number) + 1);
      }
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length] as number;
}

/**
 * The largest distance still taken for a slip: one edit for short words (three-letter
 * codes differ from each other by two or three), two up to eight characters, three beyond.
 */
function tolerance(length: number): number {
  if (length <= 4) return 1;
  if (length <= 8) return 2;
  return 3;
}

/**
 * The candidate `input` most likely misspells, or undefined when none is close enough.
 * Case is ignored (`Gate` suggests `gate`); on a tie the earlier candidate wins.
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    // Never more edits than the input has characters: `x` is no slip of `id`.
    const limit = Math.min(tolerance(Math.max(wanted.length, candidate.length)), wanted.length - 1);
    if (distance <= Math.max(limit, 0) && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** The hint for an unknown name: a suggestion when close, else the list of valid names. */
export function suggestionHint(input: string, candidates: readonly string[]): string {
  const guess = didYouMean(input, candidates);
  if (guess !== undefined) return `did you mean \`${guess}\`?`;
  return `expected one of ${candidates.map((c) => `\`${c}\``).join(", ")}`;
}
