/**
 * The simulator's admin interface, HTTP under its own prefix (default `/_admin`),
 * off unless enabled. It speaks JSON both ways (unlike the API, errors carry a
 * body: `{ "error", "code" }`) and drives the same objects tests use in-process:
 * the FaultInjector and the Simulator facade (script actions, schedule, clock).
 *
 *   GET    /state              simulated now, speed, counts, faults, counters
 *   GET    /faults             fault settings
 *   PUT    /faults             replace fault settings (missing fields = no fault)
 *   PATCH  /faults             change the given fault settings only
 *   GET    /faults/counters    injected-fault counters
 *   DELETE /faults/counters    reset the counters
 *   POST   /actions            apply a ScriptAction (or an array) now
 *   POST   /scheduled          schedule a ScheduledAction (or an array)
 *   GET    /scheduled          scheduled actions not yet applied
 *   DELETE /scheduled/{id}     drop a scheduled action
 *   POST   /clock              { "speed"?: n, "skipMs"?: n }, then a tick
 *   POST   /tick               process everything due up to the simulated now
 *
 * Actions are validated with the facade's own validators before any is applied,
 * so an array with one bad item changes nothing.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ErrorCode, FlightwatchError } from "../../errors.js";
import { toLocalDateTime } from "../../time/local-time.js";
import type { FlightStore } from "../flight-store.js";
import type { ScheduledAction, ScriptAction } from "../script-action.js";
import { validateAction, validateScheduled } from "../script-runner.js";
import type { SimClock } from "../sim-clock.js";
import type { FaultInjector } from "./faults.js";

/** A clock the admin interface may steer: ScaledClock (speed, skip) or ManualClock (advance). */
export type SteerableClock = SimClock & {
  speed?: number;
  setSpeed?(speed: number): void;
  skip?(ms: number): void;
  advance?(ms: number): void;
};

/**
 * The parts of the Simulator facade the admin interface drives; all but `store`
 * optional, so a bare store can be served (the routes that need more answer 501).
 */
export interface SimulatorControl {
  readonly store: FlightStore;
  readonly clock?: SteerableClock;
  readonly startedAt?: number;
  readonly seed?: number;
  apply?(action: ScriptAction): unknown;
  schedule?(scheduled: ScheduledAction): unknown;
  pending?(): readonly unknown[];
  unschedule?(id: number): boolean;
  tick?(): unknown;
}

/** What the admin routes act on. */
export interface AdminContext {
  control: SimulatorControl;
  faults: FaultInjector;
}

const MAX_BODY_BYTES = 1_000_000;

const clockSchema = z
  .object({ speed: z.number().positive().max(100_000), skipMs: z.number().min(0) })
  .partial()
  .strict();

/** An admin request failed; `status` is the HTTP status to answer with. */
class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string = ErrorCode.SIM_ADMIN_REQUEST,
  ) {
    super(message);
  }
}

/** Handles one admin request; `path` is below the admin prefix (e.g. `/faults`). */
export async function handleAdmin(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  context: AdminContext,
): Promise<void> {
  try {
    const result = await route(req, path, context);
    sendJson(res, result.status ?? 200, result.body);
  } catch (err) {
    if (err instanceof AdminError) {
      sendJson(res, err.status, { error: err.message, code: err.code });
    } else if (err instanceof FlightwatchError) {
      // The facade's errors: an unknown flight is "not found", anything else a bad request.
      const status = err.code === ErrorCode.SIM_UNKNOWN_FLIGHT ? 404 : 400;
      sendJson(res, status, { error: err.message, code: err.code });
    } else {
      sendJson(res, 500, { error: String(err), code: ErrorCode.SIM_ADMIN_REQUEST });
    }
  }
}

async function route(
  req: IncomingMessage,
  path: string,
  { control, faults }: AdminContext,
): Promise<{ status?: number; body: unknown }> {
  const method = req.method ?? "GET";
  const key = `${method} ${path}`;
  switch (key) {
    case "GET /state":
      return { body: state(control, faults) };
    case "GET /faults":
      return { body: faults.settings };
    case "PUT /faults":
      return { body: faults.replace(objectBody(await readJson(req))) };
    case "PATCH /faults":
      return { body: faults.update(objectBody(await readJson(req))) };
    case "GET /faults/counters":
      return { body: faults.counters };
    case "DELETE /faults/counters":
      faults.resetCounters();
      return { body: faults.counters };
    case "POST /actions": {
      const apply = need(control.apply, "apply").bind(control);
      const actions = listOf<ScriptAction>(await readJson(req));
      actions.forEach((a, i) => {
        validateAction(a, actions.length > 1 ? `[${i}]` : "action");
      });
      return { body: { results: actions.map((a) => apply(a) ?? null) } };
    }
    case "POST /scheduled": {
      const schedule = need(control.schedule, "schedule").bind(control);
      const list = listOf<ScheduledAction>(await readJson(req));
      for (const s of list) validateScheduled(s);
      return { status: 202, body: { results: list.map((s) => schedule(s) ?? null) } };
    }
    case "GET /scheduled":
      return { body: { pending: need(control.pending, "pending").call(control) } };
    case "POST /clock":
      return { body: changeClock(control, await readJson(req)) };
    case "POST /tick":
      return { body: { result: need(control.tick, "tick").call(control) ?? null } };
    default: {
      const unschedule = /^\/scheduled\/(\d+)$/.exec(path);
      if (unschedule && method === "DELETE") {
        const dropped = need(control.unschedule, "unschedule").call(control, Number(unschedule[1]));
        if (!dropped) throw new AdminError(404, `no scheduled action ${unschedule[1]}`);
        return { body: { dropped: Number(unschedule[1]) } };
      }
      const known = KNOWN_PATHS.has(path) || unschedule !== null;
      throw new AdminError(
        known ? 405 : 404,
        known ? `${method} not allowed on ${path}` : `no admin route ${path}`,
      );
    }
  }
}

const KNOWN_PATHS = new Set([
  "/state",
  "/faults",
  "/faults/counters",
  "/actions",
  "/scheduled",
  "/clock",
  "/tick",
]);

function state(control: SimulatorControl, faults: FaultInjector): Record<string, unknown> {
  const { store } = control;
  const now = store.clock.now();
  return {
    now,
    nowLocal: toLocalDateTime(now, store.zone),
    zone: store.zone,
    speed: control.clock?.speed ?? null,
    startedAt: control.startedAt ?? null,
    seed: control.seed ?? null,
    storeVersion: store.version,
    counts: {
      flights: store.size,
      airlines: store.reference.airlines.length,
      aircraftTypes: store.reference.aircraftTypes.length,
      destinations: store.reference.destinations.length,
      scheduled: control.pending ? control.pending().length : null,
    },
    faults: faults.settings,
    counters: faults.counters,
  };
}

function changeClock(control: SimulatorControl, input: unknown): Record<string, unknown> {
  const parsed = clockSchema.safeParse(input);
  if (!parsed.success)
    throw new AdminError(400, zodMessage(parsed.error), ErrorCode.CONFIG_INVALID);
  const clock = control.clock;
  const { speed, skipMs } = parsed.data;
  if (speed !== undefined) need(clock?.setSpeed, "setting the clock speed").call(clock, speed);
  if (skipMs !== undefined) {
    const move = clock?.skip ?? clock?.advance;
    need(move, "moving the clock").call(clock, skipMs);
    // Process what became due, so the skip is visible to the next API request.
    control.tick?.();
  }
  return { now: control.store.clock.now(), speed: clock?.speed ?? null };
}

function need<F>(fn: F | undefined, name: string): F {
  if (fn === undefined) throw new AdminError(501, `this simulator does not support ${name}`);
  return fn;
}

function objectBody(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new AdminError(400, "expected a JSON object", ErrorCode.CONFIG_INVALID);
  }
  return input as Record<string, unknown>;
}

function listOf<T>(input: unknown): T[] {
  return (Array.isArray(input) ? input : [input]) as T[];
}

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid body";
  const path = issue.path.join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new AdminError(413, `body exceeds ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new AdminError(400, "body is not JSON", ErrorCode.CONFIG_INVALID);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body ?? null);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}
