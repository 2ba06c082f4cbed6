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
  /**
   * The upstream answered 404 where the contract has an operation (a collection, or a
   * record with another server's 404 page or under an unusual path): the base URL's
   * path is likely wrong.
   */
  UPSTREAM_BASE_URL: "FW_ERR_UPSTREAM_BASE_URL",
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
  /** A body is larger than the client's cap (FLIGHT_API_MAX_BODY); the rest was not read. */
  UPSTREAM_TOO_LARGE: "FW_ERR_UPSTREAM_TOO_LARGE",
  /** A poll did not finish within POLL_TIMEOUT; its requests were aborted, nothing committed. */
  POLL_TIMEOUT: "FW_ERR_POLL_TIMEOUT",
  /** No Redis answers at REDIS_URL. */
  REDIS_UNAVAILABLE: "FW_ERR_REDIS_UNAVAILABLE",
  /**
   * The Redis at REDIS_URL refused its credentials: a wrong password or ACL user, or
   * none given where one is required.
   */
  REDIS_AUTH: "FW_ERR_REDIS_AUTH",
  /** Configuration (environment variable or option) is invalid. */
  CONFIG_INVALID: "FW_ERR_CONFIG_INVALID",
  /** A rule file (or set of rule files) is invalid; the error lists every problem. */
  RULE_INVALID: "FW_ERR_RULE_INVALID",
  /**
   * A subscription import file has lines that cannot be imported; nothing was written.
   * The error lists the first problems by file, line and field, and counts the rest.
   */
  SUBSCRIPTIONS_INVALID: "FW_ERR_SUBSCRIPTIONS_INVALID",
  /**
   * A notification's destination is refused by the outbound policy (OUTBOUND_ALLOW):
   * a loopback, private, link-local … address, found when a send connected.
   */
  DESTINATION_REFUSED: "FW_ERR_DESTINATION_REFUSED",
  /**
   * A request to the HTTP API (/api/v1) is refused: no or a wrong API key, a body that
   * is not JSON, too large, fields that are wrong… answered as problem details (RFC 9457).
   */
  API_REQUEST: "FW_ERR_API_REQUEST",
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
  /**
   * The last answer's `Retry-After`, ms (capped at the client's longest): the
   * upstream asked not to be asked again sooner, so the next poll waits for it too.
   */
  retryAfterMs?: number;
  /** The body cap the answer broke (FW_ERR_UPSTREAM_TOO_LARGE), bytes. */
  maxBodyBytes?: number;
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

/**
 * A poll ran past its deadline (`POLL_TIMEOUT`): every request it had in flight was
 * aborted and it committed nothing. `timeoutMs` is the deadline it broke.
 */
export class PollTimeoutError extends FlightwatchError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, message: string) {
    super(ErrorCode.POLL_TIMEOUT, message);
    this.timeoutMs = timeoutMs;
  }
}

/** Configuration is invalid; `setting` names the variable or option. */
export class ConfigError extends FlightwatchError {
  readonly setting: string;
  /** What is wrong, without the setting's name (the message is `setting: detail`). */
  readonly detail: string;

  constructor(setting: string, message: string) {
    super(ErrorCode.CONFIG_INVALID, `${setting}: ${message}`);
    this.setting = setting;
    this.detail = message;
  }
}

/** Several configuration problems found at once; `problems` holds each of them. */
export class ConfigProblemsError extends ConfigError {
  readonly problems: readonly ConfigError[];

  constructor(problems: readonly ConfigError[]) {
    const first = problems[0];
    super(first?.setting ?? "configuration", first?.detail ?? "invalid");
    this.problems = problems;
    this.message = `${problems.length} configuration problems:\n${problems.map((p) => `  ${p.message}`).join("\n")}`;
  }
}

/**
 * The same problems with some settings named as the user gave them: a variable set
 * through a flag (`POLL_INTERVAL` → `--interval`) or a config file line
 * (`POLL_INTERVAL` → `flightwatch.yaml:3 POLL_INTERVAL`).
 */
export function renameSettings(
  err: ConfigError,
  names: Readonly<Record<string, string>>,
): ConfigError {
  const list = err instanceof ConfigProblemsError ? err.problems : [err];
  const renamed = list.map((p) => {
    const name = names[p.setting];
    return name === undefined ? p : new ConfigError(name, p.detail);
  });
  return renamed.length === 1 && !(err instanceof ConfigProblemsError)
    ? (renamed[0] as ConfigError)
    : new ConfigProblemsError(renamed);
}

/**
 * Collects configuration problems so that a start reports all of them at once:
 * each reader runs under `take`, and `throwIfAny` ends the reading.
 */
export class ConfigProblems {
  readonly #list: ConfigError[] = [];

  /** Runs `read`; a ConfigError it throws is kept as a problem and undefined returned. */
  take<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (err) {
      if (err instanceof ConfigProblemsError) this.#list.push(...err.problems);
      else if (err instanceof ConfigError) this.#list.push(err);
      else throw err;
      return undefined;
    }
  }

  /** Records a problem with `setting`. */
  add(setting: string, message: string): void {
    this.#list.push(new ConfigError(setting, message));
  }

  /** The problems so far. */
  get list(): readonly ConfigError[] {
    return this.#list;
  }

  /** Throws the one problem, or all of them as a ConfigProblemsError; nothing if none. */
  throwIfAny(): void {
    const [first] = this.#list;
    if (first === undefined) return;
    throw this.#list.length === 1 ? first : new ConfigProblemsError([...this.#list]);
  }
}

/** One problem found in a rule file: where, which rule, what, and how to fix it. */
export interface RuleProblem {
  /** The file as given to the loader (relative paths stay relative). */
  file: string;
  /** 1-based; 0 when the problem concerns the file as a whole (unreadable, empty). */
  line: number;
  column: number;
  /** The rule's id, when known. */
  ruleId?: string;
  /** Where in the document, as a path (`rules[2].changes[0].kind`); empty for the file. */
  path: string;
  message: string;
  /** How to fix it ("did you mean `gate`?"), when there is something to suggest. */
  hint?: string;
}

/** One line per problem: `file:line:col rule \`id\`: message — hint`. */
export function formatRuleProblem(problem: RuleProblem): string {
  const where =
    problem.line > 0 ? `${problem.file}:${problem.line}:${problem.column}` : problem.file;
  const rule = problem.ruleId ? ` rule \`${problem.ruleId}\`` : "";
  const hint = problem.hint ? ` — ${problem.hint}` : "";
  return `${where}${rule}: ${problem.message}${hint}`;
}

/** Rule files are invalid; `problems` lists every problem found, in file order. */
export class RuleInvalidError extends FlightwatchError {
  readonly problems: readonly RuleProblem[];

  constructor(problems: readonly RuleProblem[]) {
    const n = problems.length;
    super(
      ErrorCode.RULE_INVALID,
      `${n} problem${n === 1 ? "" : "s"} in the rule files:\n${problems.map(formatRuleProblem).join("\n")}`,
    );
    this.problems = problems;
  }
}

/** A problem of one line of a subscription file: the field at fault (absent: the whole line), and why. */
export interface FileLineProblem {
  line: number;
  field?: string;
  message: string;
}

/** `file:line: field: message`, as editors and terminals link it. */
export function formatFileLineProblem(file: string, p: FileLineProblem): string {
  return `${file}:${p.line}: ${p.field !== undefined ? `${p.field}: ` : ""}${p.message}`;
}

/**
 * A subscription import refused: `invalidLines` lines of `file` cannot be imported, so
 * nothing was; `problems` are the first of their `problemCount` problems, in line order.
 */
export class SubscriptionsInvalidError extends FlightwatchError {
  readonly file: string;
  readonly problems: readonly FileLineProblem[];
  readonly problemCount: number;
  readonly invalidLines: number;

  constructor(
    file: string,
    problems: readonly FileLineProblem[],
    counts: { problemCount: number; invalidLines: number },
  ) {
    const n = counts.invalidLines;
    const more = counts.problemCount - problems.length;
    super(
      ErrorCode.SUBSCRIPTIONS_INVALID,
      `${n.toLocaleString("en")} line${n === 1 ? "" : "s"} of ${file} cannot be imported, so nothing was ` +
        "(fix them, or --skip-invalid imports the others):\n" +
        problems.map((p) => formatFileLineProblem(file, p)).join("\n") +
        (more > 0
          ? `\n… and ${more.toLocaleString("en")} more problem${more === 1 ? "" : "s"}`
          : ""),
    );
    this.file = file;
    this.problems = problems;
    this.problemCount = counts.problemCount;
    this.invalidLines = n;
  }
}

/**
 * A send was refused before its socket connected: the address (`address`, resolved
 * from `hostname` when the URL names a host) is not one notifications may reach.
 * `permanent` when the URL holds the address itself (no later lookup can change it).
 */
export class DestinationRefusedError extends FlightwatchError {
  readonly address: string;
  readonly hostname: string;
  readonly permanent: boolean;

  constructor(address: string, hostname: string, message: string) {
    super(ErrorCode.DESTINATION_REFUSED, message);
    this.address = address;
    this.hostname = hostname;
    this.permanent = address === hostname;
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

/** One field of an API request that is wrong, and why (the `errors` of a problem). */
export interface FieldProblem {
  /** The body's field (`flight`, `labels.booking`), query parameter or header. */
  field: string;
  message: string;
}

/**
 * An HTTP API request is refused with `status`; `problem` is the kind (a stable slug
 * the API turns into its problem type), `errors` the fields at fault, `headers` any the
 * answer must carry (`Allow`, `WWW-Authenticate`).
 */
export class ApiRequestError extends FlightwatchError {
  readonly status: number;
  readonly problem: string;
  readonly errors: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    problem: string,
    detail: string,
    options: { errors?: readonly FieldProblem[]; headers?: Record<string, string> } = {},
  ) {
    super(ErrorCode.API_REQUEST, detail);
    this.status = status;
    this.problem = problem;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }
}

/** One line about an error for people: its message, and its code when it has one. */
export function describeError(err: unknown): string {
  if (err instanceof FlightwatchError) return `${err.message} [${err.code}]`;
  return err instanceof Error ? err.message : String(err);
}
