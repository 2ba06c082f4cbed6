/**
 * The one catalogue of flightwatch errors. Callers and tests match on `.code`,
 * never on message text; messages name the parameter, field or file at fault.
 */

/** Stable error codes, one per failure kind. */
export const ErrorCode = {
  /** A parameter given to an API operation breaks the contract; nothing was sent. */
  INVALID_PARAM: "FW_ERR_INVALID_PARAM",
  /** The upstream answered 400 Bad Request. */
  UPSTREAM_BAD_REQUEST: "FW_ERR_UPSTREAM_BAD_REQUEST",
  /** The upstream answered 401/403: credentials missing or refused. */
  UPSTREAM_AUTH: "FW_ERR_UPSTREAM_AUTH",
  /** The upstream answered 404 for a single-record operation. */
  NOT_FOUND: "FW_ERR_NOT_FOUND",
  /** The upstream answered with another status we cannot use (after any retries). */
  UPSTREAM_HTTP: "FW_ERR_UPSTREAM_HTTP",
  /** Connecting, sending or reading the body failed or timed out (after any retries). */
  UPSTREAM_NETWORK: "FW_ERR_UPSTREAM_NETWORK",
  /** The body is not the JSON the contract describes. */
  UPSTREAM_MALFORMED: "FW_ERR_UPSTREAM_MALFORMED",
  /** A Link header is unusable (e.g. `next` points to another host). */
  UPSTREAM_LINK: "FW_ERR_UPSTREAM_LINK",
  /** A paged walk reached the contract's 500-page cap: the query must be split. */
  UPSTREAM_PAGE_LIMIT: "FW_ERR_UPSTREAM_PAGE_LIMIT",
  /** No Redis answers at REDIS_URL (or it refused the credentials). */
  REDIS_UNAVAILABLE: "FW_ERR_REDIS_UNAVAILABLE",
  /** Configuration (environment variable or option) is invalid. */
  CONFIG_INVALID: "FW_ERR_CONFIG_INVALID",
  /** A simulator admin request cannot be served (unknown route, unsupported, too large). */
  SIM_ADMIN_REQUEST: "FW_ERR_SIM_ADMIN_REQUEST",
  /** A simulator script action names a flight the simulator does not have. */
  SIM_UNKNOWN_FLIGHT: "FW_ERR_SIM_UNKNOWN_FLIGHT",
  /** A simulator script action is malformed (no target, bad id, both `at` and `afterMs`...). */
  SIM_INVALID_ACTION: "FW_ERR_SIM_INVALID_ACTION",
} as const;

/** Union of all error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every error flightwatch raises on purpose. */
export class FlightwatchError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** A parameter breaks the contract; `param` names it as the API spells it. */
export class InvalidParamError extends FlightwatchError {
  readonly param: string;

  constructor(param: string, message: string) {
    super(ErrorCode.INVALID_PARAM, `invalid parameter \`${param}\`: ${message}`);
    this.param = param;
  }
}

/** Details of the HTTP exchange that failed, without credentials. */
export interface UpstreamErrorDetails {
  /** Operation id from the contract, e.g. `getFlights`. */
  operation: string;
  /** Request URL (query included; credentials never travel in the URL). */
  url: string;
  status?: number;
  /** Number of attempts made, retries included. */
  attempts?: number;
}

/** An upstream exchange failed; `details` says which and how. */
export class UpstreamError extends FlightwatchError {
  readonly details: UpstreamErrorDetails;

  constructor(
    code: ErrorCode,
    message: string,
    details: UpstreamErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.details = details;
  }

  /** HTTP status, when the upstream answered at all. */
  get status(): number | undefined {
    return this.details.status;
  }
}

/**
 * The record named in the path does not exist (404 on a single-record operation).
 * An answer, not a failure: callers treat it as "no such flight/airline/destination".
 */
export class NotFoundError extends UpstreamError {
  constructor(message: string, details: UpstreamErrorDetails) {
    super(ErrorCode.NOT_FOUND, message, details);
  }
}

/** Configuration is invalid; `setting` names the variable or option. */
export class ConfigError extends FlightwatchError {
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(ErrorCode.CONFIG_INVALID, `${setting}: ${message}`);
    this.setting = setting;
  }
}

/** A simulator script action names no existing flight; `selector` is its target as given. */
export class UnknownFlightError extends FlightwatchError {
  readonly selector: Readonly<{ id?: string; flightName?: string; scheduleDate?: string }>;

  constructor(selector: { id?: string; flightName?: string; scheduleDate?: string }) {
    super(
      ErrorCode.SIM_UNKNOWN_FLIGHT,
      `no flight matches the selector ${JSON.stringify(selector)}; ` +
        "check the id, or the flightName (e.g. KL1001) and scheduleDate (yyyy-MM-dd)",
    );
    this.selector = { ...selector };
  }
}

/** A simulator script action is malformed; `field` names the part at fault (e.g. `patch.id`). */
export class InvalidActionError extends FlightwatchError {
  readonly field: string;

  constructor(field: string, message: string) {
    super(ErrorCode.SIM_INVALID_ACTION, `invalid script action, \`${field}\`: ${message}`);
    this.field = field;
  }
}

/** One line about an error for people: its message, and its code when it has one. */
export function describeError(err: unknown): string {
  if (err instanceof FlightwatchError) return `${err.message} [${err.code}]`;
  return err instanceof Error ? err.message : String(err);
}
