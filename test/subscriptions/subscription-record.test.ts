import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SUBSCRIPTION_STATUSES,
  type Subscription,
  type SubscriptionChannel,
} from "../../src/subscriptions/subscription.js";
import {
  decodeSubscription,
  encodeSubscription,
} from "../../src/subscriptions/subscription-record.js";

const ANNA: Subscription = {
  id: "3kq5cz0y1b6x2m4n",
  flight: "KL1001",
  date: "2026-11-27",
  preset: "essentials",
  channel: { type: "email", to: "anna.jansen@example.com" },
  labels: { booking: "X7Q2LM" },
  status: "active",
  createdAt: Date.parse("2026-11-20T09:12:00Z"),
};

/** Any text, control characters and the separator itself included. */
const text = fc.string({ unit: "binary", maxLength: 30 });
const channel: fc.Arbitrary<SubscriptionChannel> = fc.oneof(
  fc.record({ type: fc.constant("email" as const), to: text }),
  fc.record(
    { type: fc.constant("webhook" as const), url: text, secret: text },
    { requiredKeys: ["type", "url"] },
  ),
);
const subscription: fc.Arbitrary<Subscription> = fc
  .record({
    id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    flight: fc.stringMatching(/^[A-Z0-9]{3,8}$/),
    date: fc.constantFrom("2026-11-27", "2027-01-01"),
    what: fc.oneof(
      fc.constantFrom("essentials", "other").map((preset) => ({ preset })),
      fc
        .array(fc.oneof(fc.constantFrom("gate", "belt"), fc.record({ kind: text })), {
          minLength: 1,
        })
        .map((changes) => ({ changes: changes as unknown[] })),
    ),
    channel,
    labels: fc.dictionary(fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/), text, { maxKeys: 5 }),
    status: fc.constantFrom(...SUBSCRIPTION_STATUSES),
    createdAt: fc.integer({ min: 0, max: 2 ** 50 }),
    // English is the default: a subscription in English has no language.
    language: fc.constantFrom(undefined, "nl" as const),
    direction: fc.constantFrom(undefined, "departure" as const, "arrival" as const),
    quietHours: fc.constantFrom(undefined, "23:00-07:00", "22:30-06:15 Europe/London"),
    remind: fc.constantFrom<string[] | undefined>(
      undefined,
      ["30m before boarding"],
      ["3h before departure", "1h30m before gate_closing"],
    ),
  })
  .map(({ what, language, direction, quietHours, remind, ...rest }) => ({
    ...rest,
    ...what,
    ...(language !== undefined ? { language } : {}),
    ...(direction !== undefined ? { direction } : {}),
    ...(quietHours !== undefined ? { quietHours } : {}),
    ...(remind !== undefined ? { remind } : {}),
  }));

describe("a subscription's stored text", () => {
  it("gives back the subscription it was made of, whatever its texts hold", () => {
    fc.assert(
      fc.property(subscription, (s) => {
        const back = decodeSubscription(s.id, s.flight, s.date, encodeSubscription(s));
        expect(back).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  it("is short enough for a listpack (≤ 64 bytes) for a passenger's usual subscription", () => {
    const stored = encodeSubscription(ANNA);
    expect(Buffer.byteLength(stored)).toBeLessThanOrEqual(64);
    expect(stored).not.toContain("essentials");
    expect(stored).not.toContain(ANNA.id);
    expect(stored).not.toContain(ANNA.date);
  });

  it("is refused, not guessed, when it was not written by the store", () => {
    for (const bad of ["", "a", "[1,2]", "[", "qe1\x1fx", "aq1\x1fx", "ae1\x1fx\x1f{oops"]) {
      expect(decodeSubscription("a", "KL1", "2026-11-27", bad)).toBeUndefined();
    }
  });
});
