/**
 * Sorts strings in place in the order `Array.prototype.sort()` gives them (by UTF-16
 * code units). The differ sorts a handful of names or states per flight: insertion
 * sort allocates nothing there, where the builtin allocates a work area on every call.
 */
export function sortStrings(values: string[]): string[] {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: both ways give the same order (tests check both)
  if (values.length > 32) return values.sort();
  sortFirst(values, values.length);
  return values;
}

/**
 * `sortStrings` on the first `n` entries of `values` only, the rest left as they are:
 * for a reused scratch array whose length is not the count of its entries.
 */
export function sortFirst(values: string[], n: number): void {
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: both ways give the same order (tests check both)
  if (n > 32) {
    const sorted = values.slice(0, n).sort();
    for (let i = 0; i < n; i++) values[i] = sorted[i] as string;
    return;
  }
  for (let i = 1; i < n; i++) {
    const value = values[i] as string;
    let j = i - 1;
    while (j >= 0 && (values[j] as string) > value) {
      values[j + 1] = values[j] as string;
      j--;
    }
    values[j + 1] = value;
  }
}
