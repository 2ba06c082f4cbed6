/**
 * Sorts strings in place in the order `Array.prototype.sort()` gives them (by UTF-16
 * code units). The differ sorts a handful of names or states per flight: insertion
 * sort allocates nothing there, where the builtin allocates a work area on every call.
 */
export function sortStrings(values: string[]): string[] {
  if (values.length > 32) return values.sort();
  for (let i = 1; i < values.length; i++) {
    const value = values[i] as string;
    let j = i - 1;
    while (j >= 0 && (values[j] as string) > value) {
      values[j + 1] = values[j] as string;
      j--;
    }
    values[j + 1] = value;
  }
  return values;
}
