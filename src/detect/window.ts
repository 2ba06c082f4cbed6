/**
 * Where an incremental read starts: from what the last poll covered, minus an
 * overlap sized from the upstream's stamp lag as observed.
 *
 * A poll covers every record visible when the upstream first answered it (its
 * `Date` header; see Detector). A record that turns up later with a `lastUpdatedAt`
 * older than that was not visible then: the upstream's stamps lag its clock by at
 * least the difference. The largest such lag is kept in the detection state and
 * halves every `LAG_HALF_LIFE_MS` without a larger one; the overlap is half as much
 * again plus a second, within the configured floor (`POLL_OVERLAP_MIN`) and
 * maximum (`POLL_OVERLAP`). A lag too large for the overlap to show is found by a
 * reconciliation (which reads everything), and widens the overlap from then on.
 *
 * Until `LAG_EVIDENCE` new versions have been seen, the lag is not known yet: the
 * overlap is then at least `UNMEASURED_OVERLAP_MS`, wide enough to see the lags
 * upstreams commonly show (a couple of seconds) and so to measure them.
 */
import type { DetectionState } from "../store/detection-store.js";

const SECOND = 1000;
/** An observed lag halves this often (of the airport's clock) unless a larger one is seen. */
export const LAG_HALF_LIFE_MS = 6 * 3_600_000;
/** The overlap is the lag times this, plus `LAG_MARGIN_MS`, rounded up to a second. */
const LAG_FACTOR = 1.5;
const LAG_MARGIN_MS = SECOND;
/** New versions seen before the lag counts as measured. */
export const LAG_EVIDENCE = 100;
/** The least overlap while the lag is not measured yet. */
export const UNMEASURED_OVERLAP_MS = 2 * SECOND;

/** The bounds the overlap is chosen within. */
export interface OverlapBounds {
  /** The most, ms (POLL_OVERLAP). */
  overlapMs: number;
  /** The least, ms (POLL_OVERLAP_MIN); the most wins when they cross. */
  overlapMinMs: number;
}

/** The stamp lag observed, as of `now` (decayed since it was seen), ms; 0 when none was. */
export function stampLag(state: Pick<DetectionState, "lagMs" | "lagAt">, now: number): number {
  const { lagMs, lagAt } = state;
  // Stryker disable next-line EqualityOperator: "< 0": a lag of 0 decays to 0 as well (the other ways are killed)
  if (lagMs === undefined || lagMs <= 0) return 0;
  const age = Math.max(0, now - (lagAt ?? now));
  return lagMs * 0.5 ** (age / LAG_HALF_LIFE_MS);
}

/**
 * The overlap for an observed lag, ms: a whole number of seconds within the bounds;
 * at least `UNMEASURED_OVERLAP_MS` (within the maximum) while the lag is not measured.
 */
export function overlapFor(lagMs: number, bounds: OverlapBounds, measured = true): number {
  const wanted = Math.ceil((lagMs * LAG_FACTOR + LAG_MARGIN_MS) / SECOND) * SECOND;
  const floor = measured
    ? bounds.overlapMinMs
    : Math.max(bounds.overlapMinMs, UNMEASURED_OVERLAP_MS);
  return Math.min(bounds.overlapMs, Math.max(floor, wanted));
}

/** Whether enough new versions have been seen for the observed lag to count as measured. */
export function lagMeasured(state: Pick<DetectionState, "lagEvidence">): boolean {
  return (state.lagEvidence ?? 0) >= LAG_EVIDENCE;
}

/** The evidence after a poll that saw `versions` new versions (it stops counting at enough). */
export function nextLagEvidence(
  state: Pick<DetectionState, "lagEvidence">,
  versions: number,
): Pick<DetectionState, "lagEvidence"> {
  const before = state.lagEvidence ?? 0;
  if (versions <= 0 || before >= LAG_EVIDENCE) return {};
  return { lagEvidence: Math.min(LAG_EVIDENCE, before + versions) };
}

/**
 * The lag to keep after a poll that saw `seenMs` (0 when nothing showed a lag): the
 * larger one is kept, with when it was seen; an empty object keeps the state's.
 */
export function nextStampLag(
  state: Pick<DetectionState, "lagMs" | "lagAt">,
  now: number,
  seenMs: number,
): Pick<DetectionState, "lagMs" | "lagAt"> {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: dropping "seenMs <= 0", or "< 0": a lag of 0 or less is never above the one kept (never below 0); the other ways are killed
  if (seenMs <= 0 || seenMs <= stampLag(state, now)) return {};
  return { lagMs: Math.round(seenMs), lagAt: now };
}
