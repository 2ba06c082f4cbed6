/**
 * The upstream omits fields freely and sometimes sends `null` instead: both mean
 * "unknown", never "removed". Normalising `null` to "absent" before validation
 * gives every later stage (differ, matcher) one representation of unknown.
 */

/** Deepest nesting of arrays and objects a record may have; flight records nest at most 6. */
export const MAX_RECORD_DEPTH = 64;

/** What `stripNulls` returns for a value nested deeper than its limit. */
export const TOO_DEEP: unique symbol = Symbol("nested too deep");

/**
 * A deep copy of a parsed JSON value without `null`: null-valued keys are dropped,
 * null array elements are removed, and a top-level `null` becomes undefined. Keys
 * named `__proto__` are dropped too, so a hostile body cannot reach a prototype.
 * A value nesting arrays/objects deeper than `maxDepth` yields `TOO_DEEP` instead:
 * the copy recurses, and a hostile body 10,000 levels deep would overflow the stack.
 */
export function stripNulls(value: unknown, maxDepth = MAX_RECORD_DEPTH): unknown {
  return strip(value, maxDepth);
}

// Every record of every page read goes through here (about as costly as parsing it
// was, with Object.entries): keys by index, and no call for a primitive.
function strip(value: unknown, depthLeft: number): unknown {
  if (value === null) return undefined;
  if (typeof value !== "object" || value === undefined) return value;
  if (depthLeft <= 0) return TOO_DEEP;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (element === null) continue;
      const copy = typeof element === "object" ? strip(element, depthLeft - 1) : element;
      if (copy === TOO_DEEP) return TOO_DEEP;
      out.push(copy);
    }
    return out;
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const field = source[key];
    if (field === null || key === "__proto__") continue;
    const copy = typeof field === "object" ? strip(field, depthLeft - 1) : field;
    if (copy === TOO_DEEP) return TOO_DEEP;
    out[key] = copy;
  }
  return out;
}
