/**
 * Alerts for the delivery benchmarks, from the simulator's data: a generated airport
 * evolved five simulated minutes at a time through fold → diff → change event, as the
 * detector does, and each flight's changes of one poll made into one alert — what a
 * rule taking every change with no group wait decides. Rules differ only in id, so a
 * batch of flight changes is reused for rule after rule until there are enough alerts
 * (each with its own deterministic id, as a second rule's alert has).
 */
import type { ChangeEvent } from "../src/diff/change.js";
import type { Alert, AlertChange } from "../src/dispatch/alert.js";
import { alertId } from "../src/dispatch/alert-id.js";
import { simulatedPolls } from "./simulated-polls.js";

export { BENCH_ZONE } from "./simulated-polls.js";

/** Six simulated hours of polls give some 4,000 flight-change groups. */
const POLLS = 72;

/** One flight's changes of one poll, before a rule id makes them an alert. */
interface ChangeGroup {
  events: ChangeEvent[];
  at: number;
}

/** The simulator's polls as groups of one flight's events each (the baseline poll left out). */
function changeGroups(): ChangeGroup[] {
  return simulatedPolls(POLLS).polls.flatMap((poll) =>
    poll.flights.map((events) => ({ events, at: poll.now })),
  );
}

function alertOf(group: ChangeGroup, ruleId: string): Alert {
  const first = group.events[0] as ChangeEvent;
  const changes = group.events.map((e): AlertChange => {
    const { id, flight, version, current, ...change } = e;
    return { ...change, eventIds: [id] };
  });
  const current = group.events.at(-1)?.current;
  return {
    id: alertId(
      ruleId,
      first.flight.key,
      group.events.map((e) => e.id),
    ),
    ruleId,
    labels: { team: "ops", source: "bench" },
    flight: first.flight,
    ...(current ? { current } : {}),
    changes,
    openedAt: group.at,
    decidedAt: group.at,
  };
}

/** What the builder made: alerts, the rule ids they name, and how many changes they carry. */
export interface BenchAlerts {
  alerts: Alert[];
  ruleIds: string[];
  /** Flight-change groups from the simulator (before reuse across rules). */
  groups: number;
  changes: number;
}

/** `count` alerts spread over rules `bench-0`, `bench-1`, …, each group used once per rule. */
export function benchAlerts(count: number): BenchAlerts {
  const groups = changeGroups();
  const alerts: Alert[] = [];
  const ruleIds: string[] = [];
  let changes = 0;
  for (let r = 0; alerts.length < count; r++) {
    const ruleId = `bench-${r}`;
    ruleIds.push(ruleId);
    for (const group of groups) {
      if (alerts.length >= count) break;
      const alert = alertOf(group, ruleId);
      changes += alert.changes.length;
      alerts.push(alert);
    }
  }
  return { alerts, ruleIds, groups: groups.length, changes };
}
