/**
 * Bulk import against a real Redis: all or nothing, every bad line named by line and
 * field, the good ones only when asked, idempotent (an import run again adds nothing
 * twice), and replacing only when asked — keeping what the line does not say.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { redisKeys } from "../../src/store/redis-keys.js";
import type { Subscription } from "../../src/subscriptions/subscription.js";
import { exportSubscriptions } from "../../src/subscriptions/subscription-export.js";
import type { FileFormat } from "../../src/subscriptions/subscription-file.js";
import {
  type ImportOptions,
  type ImportReport,
  importSubscriptions,
} from "../../src/subscriptions/subscription-import.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { toLocalDate } from "../../src/time/local-time.js";
import { type TestRedis, testRedis } from "../support/redis.js";

const ZONE = "Europe/Amsterdam";
const DAY = 86_400_000;
const DATE = toLocalDate(Date.now() + 2 * DAY, ZONE);
const SECRET = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ flight: "KL1001", date: DATE, ...fields });

describe("importing subscriptions", () => {
  let t: TestRedis;
  let store: SubscriptionStore;

  beforeEach(async () => {
    t = await testRedis("sub-import");
    store = new SubscriptionStore(t.redis, redisKeys(t.prefix), { zone: ZONE });
  });

  afterEach(async () => {
    await t.cleanup();
  });

  async function run(
    lines: readonly string[],
    options: Partial<ImportOptions> = {},
  ): Promise<ImportReport> {
    async function* source() {
      yield* lines;
    }
    return importSubscriptions(source(), {
      store,
      context: { zone: ZONE },
      format: "ndjson",
      ...options,
    });
  }

  async function all(): Promise<Subscription[]> {
    return (await store.list({}, { limit: 10_000 })).subscriptions;
  }

  it("writes nothing when a line is bad, and names every bad line by number and field", async () => {
    const lines = [
      line({ id: "a", email: "a@example.com" }),
      line({ id: "b", email: "nobody" }),
      line({ id: "c", date: "27-11-2026", email: "c@example.com" }),
      line({ id: "d", email: "d@example.com", labels: { "bad key": "x" } }),
      "not json",
      line({ id: "a", email: "a2@example.com" }),
      line({ id: "e", date: "2020-01-01", email: "e@example.com" }),
      line({ id: "f g", email: "f@example.com" }),
    ];
    const report = await run(lines, { keepProblems: 5 });
    expect(report.written).toBe(false);
    expect(await all()).toEqual([]);
    expect(report.invalidLines).toBe(7);
    expect(report.problemCount).toBe(7);
    expect(report.problems.map((p) => [p.line, p.field])).toEqual([
      [2, "email"],
      [3, "date"],
      [4, "labels.bad key"],
      [5, undefined],
      [6, "id"],
    ]);
    expect(report.problems[4]?.message).toBe("a is given on line 1 already");
  });

  it("imports the good lines when asked to skip the bad ones, and lists those", async () => {
    const report = await run(
      [line({ id: "a", email: "a@example.com" }), line({ id: "b", email: "nobody" })],
      { skipInvalid: true },
    );
    expect(report).toMatchObject({ written: true, added: 1, invalidLines: 1 });
    expect(report.problems).toMatchObject([{ line: 2, field: "email" }]);
    expect((await all()).map((s) => s.id)).toEqual(["a"]);
  });

  it("adds nothing twice: run again, every line is unchanged; a line without an id is known by its content", async () => {
    const lines = [
      line({ id: "a", email: "a@example.com", labels: { booking: "X1", seat: "2A" } }),
      line({ email: "anon@example.com" }),
      line({ email: "anon@example.com" }),
    ];
    const first = await run(lines);
    expect(first).toMatchObject({ written: true, added: 2, duplicates: 1 });
    const stored = await all();
    // Labels in another order, an export's status: still the same subscription.
    const again = await run([
      line({
        id: "a",
        email: "a@example.com",
        labels: { seat: "2A", booking: "X1" },
        status: "active",
      }),
      line({ email: "anon@example.com" }),
    ]);
    expect(again).toMatchObject({ written: true, added: 0, unchanged: 2, replaced: 0 });
    expect(await all()).toEqual(stored);
  });

  it("tells lines apart by direction and language, and applies a change of either", async () => {
    const both = await run([
      line({ email: "d@example.com", direction: "departure" }),
      line({ email: "d@example.com", direction: "arrival" }),
      line({ email: "d@example.com", language: "nl" }),
      line({ email: "d@example.com" }),
    ]);
    expect(both).toMatchObject({ written: true, added: 4, duplicates: 0 });
    await run([line({ id: "b", email: "b@example.com" })]);
    const changed = await run([line({ id: "b", email: "b@example.com", direction: "arrival" })]);
    expect(changed.problems).toMatchObject([{ line: 1, field: "id" }]);
    expect(
      await run([line({ id: "b", email: "b@example.com", direction: "arrival" })], {
        replace: true,
      }),
    ).toMatchObject({ replaced: 1 });
    expect((await store.get("b"))?.direction).toBe("arrival");
  });

  it("refuses a line whose id is stored with other content, unless replacing; a replaced one keeps its creation and status", async () => {
    await run([line({ id: "a", email: "a@example.com" })], { now: () => 1_000 });
    await store.setStatus("a", "unsubscribed");
    const changed = [line({ id: "a", email: "a.new@example.com" })];
    const refused = await run(changed);
    expect(refused.written).toBe(false);
    expect(refused.problems).toMatchObject([
      { line: 1, field: "id", message: expect.stringContaining("--replace") },
    ]);
    expect(await run(changed, { replace: true })).toMatchObject({ written: true, replaced: 1 });
    expect(await store.get("a")).toMatchObject({
      channel: { to: "a.new@example.com" },
      status: "unsubscribed",
      createdAt: 1_000,
    });
    // A line that gives the status sets it.
    await run([line({ id: "a", email: "a.new@example.com", status: "active" })], {
      replace: true,
    });
    expect((await store.get("a"))?.status).toBe("active");
  });

  for (const format of ["ndjson", "csv"] as FileFormat[]) {
    it(`takes back an export without secrets (${format}): the stored secrets stay`, async () => {
      await run([
        line({ id: "hook", webhook: "https://app.example.com/h", secret: SECRET }),
        line({ id: "mail", email: "m@example.com", labels: { note: "a;b, c" } }),
      ]);
      const before = await all();
      const chunks: string[] = [];
      await exportSubscriptions(store, async (chunk) => void chunks.push(chunk), { format });
      const text = chunks.join("");
      expect(text).not.toContain(SECRET);
      const lines = text.trimEnd().split("\n");
      expect(await run(lines, { format, replace: true })).toMatchObject({
        written: true,
        unchanged: 2,
      });
      expect(await all()).toEqual(before);
      // A masked secret for an id with none stored cannot be taken.
      await store.remove("hook");
      const lost = await run(lines, { format, replace: true });
      expect(lost.problems).toMatchObject([
        { field: "secret", message: expect.stringContaining("--with-secrets") },
      ]);
    });
  }

  it("imports batches of a thousand, several at once, every one", async () => {
    const lines = Array.from({ length: 2_500 }, (_, i) =>
      line({ id: `p${i}`, flight: `KL${1000 + (i % 40)}`, email: `p${i}@example.com` }),
    );
    expect(await run(lines)).toMatchObject({ written: true, added: 2_500 });
    expect(await all()).toHaveLength(2_500);
    expect((await store.active([{ flight: "KL1007", date: DATE }])).length).toBe(63);
  });
});
