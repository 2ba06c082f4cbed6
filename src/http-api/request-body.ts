/**
 * The JSON body of an API request: `application/json` only, at most a set number of
 * bytes, one JSON object. A body announced larger than the limit is refused before a
 * byte of it is read, one that grows past it while arriving (chunked) as soon as it
 * does; either way the connection is then closed rather than drained, so a client
 * cannot make the daemon read megabytes it will throw away.
 */
import type { IncomingMessage } from "node:http";
import { refuse } from "./problem-details.js";

/** Default largest body: a subscription with every label and a long list of selectors fits in a few KB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** Reads and parses the body of `req` as a JSON object; throws a refusal (400, 413) otherwise. */
export async function readJsonObject(
  req: IncomingMessage,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  checkContentType(req.headers["content-type"]);
  const text = await readText(req, maxBytes);
  if (text.trim() === "") throw refuse("invalid-json", "the body is empty: send a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw refuse("invalid-json", `the body is not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw refuse(
      "invalid-json",
      `the body is JSON but not an object (it is ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}): send {"flight": …, "date": …}`,
    );
  }
  return value as Record<string, unknown>;
}

/** `application/json`, with no charset but UTF-8 (RFC 8259: JSON is UTF-8). */
function checkContentType(header: string | undefined): void {
  const [type = "", ...params] = (header ?? "").split(";").map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith("charset="))
    ?.slice(8)
    .replace(/"/g, "");
  if (type === "application/json" && (charset === undefined || charset === "utf-8")) return;
  throw refuse(
    "unsupported-content-type",
    header === undefined
      ? "the request has no Content-Type: send the body as JSON with Content-Type: application/json"
      : `Content-Type ${JSON.stringify(header)} is not accepted: send the body as JSON with Content-Type: application/json`,
    { errors: [{ field: "Content-Type", message: "must be application/json" }] },
  );
}

function readText(req: IncomingMessage, maxBytes: number): Promise<string> {
  const announced = Number(req.headers["content-length"] ?? Number.NaN);
  if (announced > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    let ended = false;
    req.on("data", onData);
    req.once("end", () => {
      ended = true;
      resolve(Buffer.concat(chunks, size).toString("utf8"));
    });
    // A client gone before the end: nothing to answer, nothing to log, but nothing may
    // wait forever.
    const gone = () => {
      if (!ended) reject(refuse("invalid-json", "the request ended before its body did"));
    };
    req.once("error", gone);
    req.once("close", gone);
  });
}

function tooLarge(maxBytes: number) {
  return refuse("body-too-large", `the body is larger than ${maxBytes} bytes`, {
    // The rest of the body is not read: the connection cannot carry another request.
    headers: { connection: "close" },
  });
}
