/**
 * Refusals of the HTTP API as problem details (RFC 9457, `application/problem+json`):
 * one closed table of problem kinds, each with its status, title and type URI, so that
 * a client tells "the flight is wrong" (422, invalid-fields) from "this idempotency key
 * was used for another body" (also 422) by `type`, never by parsing `detail`. The
 * `errors` member names each field at fault, as the subscription checks report them.
 */
import { ApiRequestError, type FieldProblem } from "../errors.js";

/** The media type of every refusal. */
export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/** The kinds of refusal: status and title (the same for every occurrence of a kind). */
export const PROBLEM_KINDS = {
  "invalid-json": { status: 400, title: "The body is not a JSON object" },
  "unsupported-content-type": { status: 400, title: "The body must be application/json" },
  "invalid-parameters": { status: 400, title: "A query parameter or header is invalid" },
  unauthorized: { status: 401, title: "A valid API key is required" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "idempotency-key-spent": {
    status: 409,
    title: "The subscription made under this Idempotency-Key is gone",
  },
  "body-too-large": { status: 413, title: "The body is too large" },
  "invalid-fields": { status: 422, title: "Some fields are invalid" },
  "idempotency-key-reused": {
    status: 422,
    title: "This Idempotency-Key was used for another request",
  },
  "server-error": { status: 500, title: "The request could not be completed" },
} as const;

/** A kind of refusal (a key of PROBLEM_KINDS). */
export type ProblemKind = keyof typeof PROBLEM_KINDS;

/**
 * The type URI of a kind. A URN: stable, never dereferenced by clients (RFC 9457
 * §3.1.1), and independent of where a deployment serves the API.
 */
export function problemType(kind: ProblemKind): string {
  return `urn:flightwatch:problem:${kind}`;
}

/** The refusal of a request, to throw: its status and title come from its kind. */
export function refuse(
  kind: ProblemKind,
  detail: string,
  options: { errors?: readonly FieldProblem[]; headers?: Record<string, string> } = {},
): ApiRequestError {
  return new ApiRequestError(PROBLEM_KINDS[kind].status, kind, detail, options);
}

/** A problem details document, as sent. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** The request's path: which request this occurrence is about. */
  instance: string;
  errors?: FieldProblem[];
}

/** The document of a refusal of the request to `path`. */
export function problemDocument(err: ApiRequestError, path: string): ProblemDocument {
  const kind = (err.problem in PROBLEM_KINDS ? err.problem : "server-error") as ProblemKind;
  return {
    type: problemType(kind),
    title: PROBLEM_KINDS[kind].title,
    status: err.status,
    detail: err.message,
    instance: path,
    ...(err.errors.length > 0 ? { errors: [...err.errors] } : {}),
  };
}
