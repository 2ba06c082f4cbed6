/**
 * The subscriptions API over real HTTP (undici) and a real Redis: a subscription made
 * by POST is read back, listed and deleted; webhook secrets never come back; a retried
 * create under an Idempotency-Key returns the first one's subscription — one after the
 * other, all at once, and after a create that died between its two writes.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IdempotencyRecords } from "../../src/http-api/idempotency-records.js";
import { type ApiHarness, DATE, emailBody, NEXT_DATE, SECRET, startApi } from "./api-harness.js";

describe("the subscriptions API", () => {
  let api: ApiHarness;
  beforeEach(async () => {
    api = await startApi("api");
  });
  afterEach(async () => {
    await api.close();
  });

  it("creates an active subscription, and reads it back under its Location", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ flight: "kl 0601", labels: { booking: "X7Q2LM" } }),
    });
    expect(created.status).toBe(201);
    expect(created.headers["content-type"]).toBe("application/json");
    const id = created.json.id as string;
    expect(created.headers.location).toBe(`/api/v1/subscriptions/${id}`);
    expect(created.json).toEqual({
      id,
      flight: "KL601",
      date: DATE,
      preset: "essentials",
      email: "anna@example.com",
      labels: { booking: "X7Q2LM" },
      status: "active",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
    const read = await api.call("GET", created.headers.location as string);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);
    // Stored as the CLI stores it: the pipeline matches it from the next change on.
    expect((await api.store.get(id))?.channel).toEqual({ type: "email", to: "anna@example.com" });
  });

  it("takes the language of the notifications, and shows it", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ language: "nl" }),
    });
    expect(created.status).toBe(201);
    expect(created.json.language).toBe("nl");
    expect((await api.store.get(created.json.id as string))?.language).toBe("nl");
    const refused = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ language: "fr" }),
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.json)).toContain('"field":"language"');
  });

  it("takes a direction, shows it, and refuses one that is none", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ direction: "arrival" }),
    });
    expect(created.status).toBe(201);
    expect(created.json.direction).toBe("arrival");
    expect((await api.store.get(created.json.id as string))?.direction).toBe("arrival");
    for (const direction of ["inbound", 1]) {
      const refused = await api.call("POST", "/api/v1/subscriptions", {
        body: emailBody({ direction }),
      });
      expect(refused.status).toBe(422);
      expect(JSON.stringify(refused.json)).toContain('"field":"direction"');
    }
  });

  it("takes quiet hours, shows them, and names the field when they are wrong", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ quietHours: "23:00-07:00 Europe/London" }),
    });
    expect(created.status).toBe(201);
    expect(created.json.quietHours).toBe("23:00-07:00 Europe/London");
    expect((await api.store.get(created.json.id as string))?.quietHours).toBe(
      "23:00-07:00 Europe/London",
    );
    const refused = await api.call("POST", "/api/v1/subscriptions", {
      body: emailBody({ quietHours: "23:00-24:00" }),
    });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.json)).toContain('"field":"quietHours"');
  });

  it("keeps a webhook's secret for signing but never shows it", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", {
      body: {
        flight: "DL9341",
        date: DATE,
        webhook: "https://app.example.com/hooks/fw",
        secret: SECRET,
        changes: ["gate", { kind: "departure_time", delay_at_least: "30m" }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.webhook).toBe("https://app.example.com/hooks/fw");
    expect(created.json.changes).toEqual([
      "gate",
      { kind: "departure_time", delay_at_least: "30m" },
    ]);
    const id = created.json.id as string;
    const read = await api.call("GET", `/api/v1/subscriptions/${id}`);
    const listed = await api.call("GET", "/api/v1/subscriptions");
    for (const text of [created.text, read.text, listed.text]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain("secret");
    }
    expect((await api.store.get(id))?.channel).toEqual({
      type: "webhook",
      url: "https://app.example.com/hooks/fw",
      secret: SECRET,
    });
  });

  it("deletes a subscription: 204, then 404 for it", async () => {
    const created = await api.call("POST", "/api/v1/subscriptions", { body: emailBody() });
    const path = `/api/v1/subscriptions/${created.json.id}`;
    const deleted = await api.call("DELETE", path);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await api.call("GET", path)).status).toBe(404);
    expect((await api.call("DELETE", path)).status).toBe(404);
    expect(await api.store.get(created.json.id)).toBeUndefined();
    // Nothing of it is left but the store's indexes, which expire on their own: a filing
    // hash (holding no entry for it) and the list of flight numbers and dates.
    const left = await api.written();
    expect(left.filter((k) => !/:subid:[0-9a-f]{3}$|:subs$/.test(k))).toEqual([]);
    for (const k of left.filter((k) => k.includes(":subid:"))) {
      expect(await api.t.redis.hexists(k, created.json.id as string)).toBe(0);
    }
  });

  describe("listing", () => {
    async function create(body: Record<string, unknown>): Promise<string> {
      const answer = await api.call("POST", "/api/v1/subscriptions", { body });
      expect(answer.status).toBe(201);
      return answer.json.id as string;
    }

    /** Every page of a listing, by following `next`. */
    async function allPages(query: string, limit: number): Promise<string[][]> {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const params = new URLSearchParams(query);
        params.set("limit", String(limit));
        if (cursor !== undefined) params.set("cursor", cursor);
        const answer = await api.call("GET", `/api/v1/subscriptions?${params}`);
        expect(answer.status).toBe(200);
        pages.push(answer.json.subscriptions.map((s: { id: string }) => s.id));
        cursor = answer.json.next;
        if (cursor !== undefined) {
          expect(answer.headers.link).toContain(`cursor=${cursor}`);
          expect(answer.headers.link).toContain('rel="next"');
        } else {
          expect(answer.headers.link).toBeUndefined();
        }
      } while (cursor !== undefined && pages.length < 20);
      return pages;
    }

    it("filters by flight (any spelling), date, recipient, label and status", async () => {
      const a = await create(emailBody({ labels: { booking: "AAA111" } }));
      const b = await create(
        emailBody({ email: "bob@example.com", labels: { booking: "BBB222" } }),
      );
      const c = await create(emailBody({ flight: "KL602", date: NEXT_DATE }));
      const d = await create({
        flight: "KL601",
        date: NEXT_DATE,
        webhook: "https://app.example.com/hooks/fw",
      });
      const ids = async (query: string) => {
        const answer = await api.call("GET", `/api/v1/subscriptions?${query}`);
        expect(answer.status).toBe(200);
        expect(answer.json.next).toBeUndefined();
        return answer.json.subscriptions.map((s: { id: string }) => s.id).sort();
      };
      expect(await ids("")).toEqual([a, b, c, d].sort());
      expect(await ids("flight=kl%200601")).toEqual([a, b, d].sort());
      expect(await ids(`flight=KL601&date=${DATE}`)).toEqual([a, b].sort());
      expect(await ids(`date=${NEXT_DATE}`)).toEqual([c, d].sort());
      expect(await ids("recipient=bob%40example.com")).toEqual([b]);
      expect(
        await ids(`recipient=${encodeURIComponent("https://app.example.com/hooks/fw")}`),
      ).toEqual([d]);
      expect(await ids("label=booking:AAA111")).toEqual([a]);
      expect(await ids("label=booking:nope")).toEqual([]);
      expect(await ids("status=active")).toEqual([a, b, c, d].sort());
      expect(await ids("status=unsubscribed")).toEqual([]);
    });

    it("pages with a `next` cursor until every subscription was listed once", async () => {
      const made: string[] = [];
      for (let i = 0; i < 7; i++)
        made.push(await create(emailBody({ email: `p${i}@example.com` })));
      await create(emailBody({ flight: "KL602" }));
      const pages = await allPages("flight=KL601", 3);
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      expect(pages.flat().sort()).toEqual(made.sort());
      expect(new Set(pages.flat()).size).toBe(7);
    });
  });

  describe("with an Idempotency-Key", () => {
    const post = (body: unknown, key: string, apiKey?: string) =>
      api.call("POST", "/api/v1/subscriptions", {
        body,
        headers: { "idempotency-key": key },
        ...(apiKey !== undefined ? { key: apiKey } : {}),
      });

    it("returns the first create's subscription to a retry (200), whatever the key order", async () => {
      const first = await post(emailBody({ labels: { a: "1", b: "2" } }), "retry-1");
      expect(first.status).toBe(201);
      const again = await post(
        { labels: { b: "2", a: "1" }, email: "anna@example.com", date: DATE, flight: "KL601" },
        "retry-1",
      );
      expect(again.status).toBe(200);
      expect(again.json).toEqual(first.json);
      expect(again.headers.location).toBe(first.headers.location);
      // Quoted, as the IETF draft writes it: the same key.
      const quoted = await post(emailBody({ labels: { a: "1", b: "2" } }), '"retry-1"');
      expect(quoted.status).toBe(200);
      expect(quoted.json.id).toBe(first.json.id);
      expect((await api.store.list()).subscriptions.map((s) => s.id)).toEqual([first.json.id]);
    });

    it("refuses the key with another body (422), and writes nothing", async () => {
      const first = await post(emailBody(), "reuse-1");
      const before = await api.written();
      const other = await post(emailBody({ email: "bob@example.com" }), "reuse-1");
      expect(other.status).toBe(422);
      expect(other.headers["content-type"]).toBe("application/problem+json");
      expect(other.json.type).toBe("urn:flightwatch:problem:idempotency-key-reused");
      expect(other.json.errors).toEqual([
        { field: "Idempotency-Key", message: expect.any(String) },
      ]);
      expect(await api.written()).toEqual(before);
      expect((await api.store.list()).subscriptions.map((s) => s.id)).toEqual([first.json.id]);
    });

    it("keeps each API key's idempotency keys apart", async () => {
      const { key: other } = await api.apiKeys.create("another client");
      const mine = await post(emailBody(), "shared-1");
      const theirs = await post(emailBody(), "shared-1", other);
      expect(theirs.status).toBe(201);
      expect(theirs.json.id).not.toBe(mine.json.id);
    });

    it("makes one subscription of many identical creates sent at once", async () => {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => post(emailBody(), "burst-1")),
      );
      const ids = new Set(answers.map((a) => a.json.id));
      expect(ids.size).toBe(1);
      expect(answers.every((a) => a.status === 200 || a.status === 201)).toBe(true);
      expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1);
      expect((await api.store.list()).subscriptions.map((s) => s.id)).toEqual([...ids]);
    });

    it("finishes a create that died between its claim and its write, under the claimed id", async () => {
      // What a create leaves when its process dies after claiming the key.
      const body = emailBody();
      const records = new IdempotencyRecords(api.t.redis, api.keys);
      const { fingerprintOf } = await import("../../src/http-api/idempotency-records.js");
      const verified = await api.apiKeys.verify(api.key);
      const createdAt = Date.now() - 60_000;
      expect(
        await records.claim(verified?.id as string, "crashed-1", {
          fingerprint: fingerprintOf(body),
          id: "claimed-before-crash",
          createdAt,
          done: false,
        }),
      ).toBeUndefined();
      const retry = await post(body, "crashed-1");
      expect(retry.status).toBe(200);
      expect(retry.json.id).toBe("claimed-before-crash");
      expect(retry.json.createdAt).toBe(new Date(createdAt).toISOString());
      expect((await post(body, "crashed-1")).json.id).toBe("claimed-before-crash");
      expect((await api.store.list()).subscriptions).toHaveLength(1);
    });

    it("leaves what a create that died after its write stored as it is now: a retry never re-subscribes", async () => {
      // The write happened, the record was never marked done; the passenger unsubscribed since.
      const body = emailBody();
      const records = new IdempotencyRecords(api.t.redis, api.keys);
      const { fingerprintOf } = await import("../../src/http-api/idempotency-records.js");
      const verified = await api.apiKeys.verify(api.key);
      const first = await api.call("POST", "/api/v1/subscriptions", { body });
      const id = first.json.id as string;
      await api.store.setStatus(id, "unsubscribed");
      await records.claim(verified?.id as string, "crashed-2", {
        fingerprint: fingerprintOf(body),
        id,
        createdAt: Date.parse(first.json.createdAt as string),
        done: false,
      });
      const retry = await post(body, "crashed-2");
      expect(retry.status).toBe(200);
      expect(retry.json).toMatchObject({ id, status: "unsubscribed" });
      expect((await api.store.get(id))?.status).toBe("unsubscribed");
    });

    it("says so (409) when the subscription made under the key was deleted since", async () => {
      const first = await post(emailBody(), "spent-1");
      await api.call("DELETE", `/api/v1/subscriptions/${first.json.id}`);
      const retry = await post(emailBody(), "spent-1");
      expect(retry.status).toBe(409);
      expect(retry.json.type).toBe("urn:flightwatch:problem:idempotency-key-spent");
      expect(await api.store.get(first.json.id)).toBeUndefined();
    });

    it("lets a key whose create was refused be used again", async () => {
      const refused = await post(emailBody({ flight: "nonsense" }), "fix-1");
      expect(refused.status).toBe(422);
      const fixed = await post(emailBody(), "fix-1");
      expect(fixed.status).toBe(201);
    });
  });
});
