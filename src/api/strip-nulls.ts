/**
 * The upstream omits fields freely and sometimes sends `null` instead: both mean
 * "unknown", never "removed". Normalising `null` to "absent" before validation
 * gives every later stage (differ, matcher) one representation of unknown.
 */

/**
 * A deep copy of a parsed JSON value without `null`: null-valued keys are dropped,
 * null array elements are removed, and a top-level `null` becomes undefined. Keys
 * named `__proto__` are dropped too, so a hostile body cannot reach a prototype.
 */
export function stripNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const element of value) {
      if (element !== null) out.push(stripNulls(element));
    }
    return out;
  }
  if (typeof value === "object" && value !== undefined) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (field === null || key === "__proto__") continue;
      out[key] = stripNulls(field);
    }
    return out;
  }
  return value;
}
