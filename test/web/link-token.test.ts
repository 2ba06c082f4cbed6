/**
 * The signed tokens of passengers' links: a token opens its own subscription for its
 * own purpose, and nothing else — not with a changed id, a changed or cut MAC, another
 * purpose or another deployment's secret.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINK_PURPOSES, passengerLinks, signLink, verifyLink } from "../../src/web/link-token.js";

const SECRET = "s3cret-of-the-deployment-0123456789";

describe("passenger link tokens", () => {
  it("open their subscription for their purpose", () => {
    for (const purpose of LINK_PURPOSES) {
      const token = signLink(SECRET, purpose, "anna-x7q2lm");
      expect(token.startsWith("anna-x7q2lm.")).toBe(true);
      expect(verifyLink(SECRET, purpose, token)).toBe("anna-x7q2lm");
    }
  });

  it("open no page of another purpose", () => {
    const confirm = signLink(SECRET, "confirm", "anna-x7q2lm");
    expect(verifyLink(SECRET, "unsubscribe", confirm)).toBeUndefined();
    expect(verifyLink(SECRET, "status", confirm)).toBeUndefined();
    const unsubscribe = signLink(SECRET, "unsubscribe", "anna-x7q2lm");
    expect(verifyLink(SECRET, "confirm", unsubscribe)).toBeUndefined();
  });

  it("are refused when the id or the MAC was changed, or another secret signed them", () => {
    const token = signLink(SECRET, "unsubscribe", "anna-x7q2lm");
    const [, mac] = token.split(".") as [string, string];
    expect(verifyLink(SECRET, "unsubscribe", `ben-y8r3mn.${mac}`)).toBeUndefined();
    const flipped = `${mac.slice(0, 10)}${mac[10] === "A" ? "B" : "A"}${mac.slice(11)}`;
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${flipped}`)).toBeUndefined();
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${mac.slice(0, -1)}`)).toBeUndefined();
    expect(verifyLink(SECRET, "unsubscribe", `anna-x7q2lm.${mac}A`)).toBeUndefined();
    expect(verifyLink("another-deployment-secret-9876", "unsubscribe", token)).toBeUndefined();
  });

  it("are refused when malformed", () => {
    for (const bad of [
      undefined,
      "",
      ".",
      "anna-x7q2lm",
      "anna-x7q2lm.",
      ".abc",
      "a/b.abc",
      "ä.abc",
    ]) {
      expect(verifyLink(SECRET, "confirm", bad)).toBeUndefined();
    }
    expect(() => signLink(SECRET, "confirm", "not an id")).toThrow();
  });

  it("are refused after any change of one character", () => {
    const token = signLink(SECRET, "confirm", "pX2c9QmT0aLr7vYk");
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
    const url = new URL(links.unsubscribeUrl("anna-x7q2lm"));
    expect(`${url.origin}${url.pathname}`).toBe(
      "https://flights.example.com/fw/passenger/unsubscribe",
    );
    expect(verifyLink(SECRET, "unsubscribe", url.searchParams.get("t") ?? undefined)).toBe(
      "anna-x7q2lm",
    );
    expect(links.url("confirm", "anna-x7q2lm")).toMatch(/\/passenger\/confirm\?t=anna-x7q2lm\./);
    expect(links.url("status", "anna-x7q2lm")).toMatch(/\/passenger\/flight\?t=anna-x7q2lm\./);
  });
});
