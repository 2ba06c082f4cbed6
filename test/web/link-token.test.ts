/**
 * The signed tokens of passengers' links: a token opens its own subscription — the one
 * of that id made at that moment — for its own purpose, and nothing else: not with a
 * changed id or time, a changed or cut MAC, another purpose or another deployment's
 * secret.
 */
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINK_PURPOSES, passengerLinks, signLink, verifyLink } from "../../src/web/link-token.js";

const SECRET = "s3cret-of-the-deployment-0123456789";
const ANNA = { id: "anna-x7q2lm", createdAt: Date.UTC(2026, 10, 21, 9, 30, 12, 345) };
const CREATED = ANNA.createdAt.toString(36);

describe("passenger link tokens", () => {
  it("open their subscription for their purpose", () => {
    for (const purpose of LINK_PURPOSES) {
      const token = signLink(SECRET, purpose, ANNA);
      expect(token.startsWith(`anna-x7q2lm.${CREATED}.`)).toBe(true);
      expect(verifyLink(SECRET, purpose, token)).toEqual(ANNA);
    }
  });

  it("open no page of another purpose", () => {
    const confirm = signLink(SECRET, "confirm", ANNA);
    expect(verifyLink(SECRET, "unsubscribe", confirm)).toBeUndefined();
    expect(verifyLink(SECRET, "status", confirm)).toBeUndefined();
    const unsubscribe = signLink(SECRET, "unsubscribe", ANNA);
    expect(verifyLink(SECRET, "confirm", unsubscribe)).toBeUndefined();
  });

  it("are refused when the id, the time or the MAC was changed, or another secret signed them", () => {
    const token = signLink(SECRET, "unsubscribe", ANNA);
    const [, created, mac] = token.split(".") as [string, string, string];
    expect(verifyLink(SECRET, "unsubscribe", `ben-y8r3mn.${created}.${mac}`)).toBeUndefined();
    // The same id made again later: the old link does not open the new subscription.
    const later = (ANNA.createdAt + 1).toString(36);
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${later}.${mac}`)).toBeUndefined();
    const flipped = `${mac.slice(0, 10)}${mac[10] === "A" ? "B" : "A"}${mac.slice(11)}`;
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${created}.${flipped}`)).toBeUndefined();
    expect(
      verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${created}.${mac.slice(0, -1)}`),
    ).toBeUndefined();
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${created}.${mac}A`)).toBeUndefined();
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${mac}`)).toBeUndefined();
    expect(verifyLink("another-deployment-secret-9876", "unsubscribe", token)).toBeUndefined();
  });

  it("are refused when malformed", () => {
    for (const bad of [
      undefined,
      "",
      ".",
      "..",
      "anna-x7q2lm",
      "anna-x7q2lm.",
      `anna-x7q2lm.${CREATED}.`,
      `anna-x7q2lm.${CREATED}`,
      ".abc",
      "a/b.1.abc",
      "ä.1.abc",
      "a.-1.abc",
      "a.1.b.c",
    ]) {
      expect(verifyLink(SECRET, "confirm", bad)).toBeUndefined();
    }
    expect(() => signLink(SECRET, "confirm", { id: "not an id", createdAt: 1 })).toThrow(
      'not a subscription id: "not an id"',
    );
    expect(() => signLink(SECRET, "confirm", { id: "a", createdAt: 1.5 })).toThrow(
      "not a creation time: 1.5",
    );
    expect(() => signLink(SECRET, "confirm", { id: "a", createdAt: -1 })).toThrow(
      "not a creation time: -1",
    );
    // The epoch itself is a time.
    const epoch = { id: "a", createdAt: 0 };
    expect(verifyLink(SECRET, "confirm", signLink(SECRET, "confirm", epoch))).toEqual(epoch);
  });

  it("are refused when id or time is malformed, even under a MAC made for it", () => {
    // What only a holder of the secret could make: the check of the form stands alone.
    const signed = (id: string, created: string) =>
      `${id}.${created}.${createHmac("sha256", SECRET)
        .update(`flightwatch passenger link\nconfirm\n${id}\n${created}`)
        .digest("base64url")}`;
    expect(verifyLink(SECRET, "confirm", signed("anna", "1"))).toEqual({
      id: "anna",
      createdAt: 1,
    });
    for (const [id, created] of [
      ["a/b", "1"],
      ["a b", "1"],
      ["anna", "1!"],
      ["anna", "!1"],
      ["anna", "1".repeat(12)],
      ["anna", "A1"],
    ] as const) {
      expect(
        verifyLink(SECRET, "confirm", signed(id, created)),
        `${id}.${created}`,
      ).toBeUndefined();
    }
  });

  it("are refused after any change of one character", () => {
    const token = signLink(SECRET, "confirm", { id: "pX2c9QmT0aLr7vYk", createdAt: 1 });
    fc.assert(
      fc.property(
        fc.nat({ max: token.length - 1 }),
        fc.constantFrom(..."ABCabc012-_.xyz"),
        (at, c) => {
          fc.pre(token[at] !== c);
          const changed = `${token.slice(0, at)}${c}${token.slice(at + 1)}`;
          expect(verifyLink(SECRET, "confirm", changed)).toBeUndefined();
        },
      ),
    );
  });

  it("make absolute links under PUBLIC_URL, one page per purpose", () => {
    const links = passengerLinks("https://flights.example.com/fw", SECRET);
    const url = new URL(links.unsubscribeUrl(ANNA));
    expect(`${url.origin}${url.pathname}`).toBe(
      "https://flights.example.com/fw/passenger/unsubscribe",
    );
    expect(verifyLink(SECRET, "unsubscribe", url.searchParams.get("t") ?? undefined)).toEqual(ANNA);
    expect(links.url("confirm", ANNA)).toMatch(/\/passenger\/confirm\?t=anna-x7q2lm\.[0-9a-z]+\./);
    expect(links.url("status", ANNA)).toMatch(/\/passenger\/flight\?t=anna-x7q2lm\.[0-9a-z]+\./);
  });
});
