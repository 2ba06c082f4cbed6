import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findLink, parseLinkHeader } from "../../src/api/link-header.js";

const BASE = "https://api.example.test/public/public-flights/v4/flights?page=0";

describe("parseLinkHeader", () => {
  it("reads several links with their rels", () => {
    const links = parseLinkHeader(
      '<https://api.example.test/v4/flights?page=0>; rel="first", ' +
        '<https://api.example.test/v4/flights?page=2>; rel="next", ' +
        "<https://api.example.test/v4/flights?page=9>; rel=last",
      BASE,
    );
    expect(links.map((l) => l.rels)).toEqual([["first"], ["next"], ["last"]]);
    expect(findLink(links, "next")?.href).toBe("https://api.example.test/v4/flights?page=2");
    expect(findLink(links, "prev")).toBeUndefined();
  });

  it("keeps commas and semicolons inside the <URL>", () => {
    const [link] = parseLinkHeader(
      '<https://h.test/v4/flights?route=LHR,CDG;x&page=1>; rel="next"',
      BASE,
    );
    expect(link?.href).toBe("https://h.test/v4/flights?route=LHR,CDG;x&page=1");
    expect(link?.rels).toEqual(["next"]);
  });

  it("keeps URL-encoded values exactly as given", () => {
    const target = "https://h.test/v4/flights?sort=%2BscheduleTime&route=LHR%2CCDG&page=3";
    const [link] = parseLinkHeader(`<${target}>;rel=next`, BASE);
    expect(link?.href).toBe(target);
    expect(link?.target).toBe(target);
  });

  it("splits a rel with several space-separated types and lower-cases them", () => {
    const links = parseLinkHeader('<https://h.test/p?page=1>; rel="Next  LAST"', BASE);
    expect(links[0]?.rels).toEqual(["next", "last"]);
    expect(findLink(links, "last")?.href).toBe("https://h.test/p?page=1");
    expect(findLink(links, "NEXT")).toBe(links[0]);
  });

  it("keeps extra parameters, quoted or not, and the first rel wins", () => {
    const [link] = parseLinkHeader(
      '<https://h.test/p>; Title="a \\"quoted\\", value; here"; type=text/html; rel=next; rel=prev',
      BASE,
    );
    expect(link?.rels).toEqual(["next"]);
    expect(link?.params).toEqual({ title: 'a "quoted", value; here', type: "text/html" });
  });

  it("tolerates whitespace variations", () => {
    const links = parseLinkHeader(
      ' \t< https://h.test/a >\t;\trel = "first" ,<https://h.test/b>;rel=next ,  ',
      BASE,
    );
    expect(links.map((l) => [l.href, l.rels[0]])).toEqual([
      ["https://h.test/a", "first"],
      ["https://h.test/b", "next"],
    ]);
  });

  it("resolves relative targets against the request URL", () => {
    const links = parseLinkHeader(
      '</public/public-flights/v4/flights?page=1>; rel="next", <?page=5>; rel="last"',
      BASE,
    );
    expect(links[0]?.href).toBe("https://api.example.test/public/public-flights/v4/flights?page=1");
    expect(links[1]?.href).toBe("https://api.example.test/public/public-flights/v4/flights?page=5");
  });

  it("accepts repeated headers as an array", () => {
    const links = parseLinkHeader(
      ['<https://h.test/a>; rel="first"', '<https://h.test/b>; rel="next"'],
      BASE,
    );
    expect(findLink(links, "next")?.href).toBe("https://h.test/b");
  });

  it("skips garbage between links and reports unusable targets as undefined", () => {
    const links = parseLinkHeader(
      'garbage; rel="next", <http://[bad>; rel="prev", <https://h.test/b>; rel="next"',
      "not a base",
    );
    expect(links.map((l) => [l.target, l.href, l.rels])).toEqual([
      ["http://[bad", undefined, ["prev"]],
      ["https://h.test/b", "https://h.test/b", ["next"]],
    ]);
  });

  it("returns nothing for an absent or empty header", () => {
    expect(parseLinkHeader(undefined, BASE)).toEqual([]);
    expect(parseLinkHeader("", BASE)).toEqual([]);
    expect(parseLinkHeader(" , ,", BASE)).toEqual([]);
  });
});

// --- property: any set of well-formed links survives format → parse -------------------------

const REL_TYPES = ["first", "prev", "next", "last", "self", "alternate"] as const;
const blank = fc.constantFrom("", " ", "  ", "\t", " \t ");
const token = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/).filter((t) => t !== "rel");
const quotable = fc.string({ unit: fc.constantFrom(...'ab ,;="\\<>/x1'), maxLength: 12 });

/** Query values: plain, URL-encoded (%2B, %2C, %20) or with raw commas and semicolons. */
const queryValue = fc.stringMatching(/^([A-Za-z0-9]|%2B|%2C|%20|%3A|,|;|\+|-){0,12}$/);
const absoluteUrl = fc
  .tuple(
    fc.constantFrom("http", "https"),
    fc.constantFrom("h.test", "api.example.test", "127.0.0.1:8080"),
    fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 3 }),
    fc.array(fc.tuple(fc.stringMatching(/^[a-zA-Z]{1,10}$/), queryValue), { maxLength: 4 }),
  )
  .map(
    ([scheme, host, segments, query]) =>
      `${scheme}://${host}/${segments.join("/")}` +
      (query.length ? `?${query.map(([k, v]) => `${k}=${v}`).join("&")}` : ""),
  );
const relativeUrl = fc
  .tuple(fc.stringMatching(/^[a-z0-9]{1,8}$/), queryValue)
  .map(([p, v]) => `/v4/${p}?page=${v}`);

const linkSpec = fc.record({
  url: fc.oneof(absoluteUrl, relativeUrl),
  rels: fc.uniqueArray(fc.constantFrom(...REL_TYPES), { minLength: 1, maxLength: 3 }),
  relCase: fc.constantFrom("lower", "upper"),
  quoteRel: fc.boolean(),
  relFirst: fc.boolean(),
  params: fc.uniqueArray(fc.tuple(token, quotable), {
    maxLength: 3,
    selector: ([name]) => name,
  }),
  gaps: fc.array(blank, { minLength: 8, maxLength: 8 }),
});

type LinkSpec = typeof linkSpec extends fc.Arbitrary<infer T> ? T : never;

const quote = (value: string): string => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

function format(spec: LinkSpec): string {
  const g = (i: number): string => spec.gaps[i] ?? "";
  const relValue = spec.rels.join(" ");
  const relText = spec.relCase === "upper" ? relValue.toUpperCase() : relValue;
  // An unquoted value cannot hold a space, so several types are always quoted.
  const rel = `rel${g(0)}=${g(1)}${spec.quoteRel || spec.rels.length > 1 ? quote(relText) : relText}`;
  const others = spec.params.map(([name, value]) => `${name}${g(2)}=${g(3)}${quote(value)}`);
  const params = spec.relFirst ? [rel, ...others] : [...others, rel];
  return `${g(4)}<${spec.url}>${g(5)}${params.map((p) => `;${g(6)}${p}`).join(g(7))}`;
}

describe("parseLinkHeader (property)", () => {
  it("parses back every formatted link: target, resolved href, rels and params", () => {
    fc.assert(
      fc.property(
        fc.array(linkSpec, { minLength: 0, maxLength: 5 }),
        fc.constantFrom(",", ", ", " ,\t", " , "),
        (specs, separator) => {
          const header = specs.map(format).join(separator);
          const links = parseLinkHeader(header, BASE);
          expect(links).toHaveLength(specs.length);
          specs.forEach((spec, i) => {
            const link = links[i];
            expect(link?.target).toBe(spec.url);
            expect(link?.href).toBe(new URL(spec.url, BASE).href);
            // Absolute targets are followed exactly as given, encoding included.
            if (/^https?:/.test(spec.url)) expect(link?.href).toBe(spec.url);
            expect(link?.rels).toEqual(spec.rels);
            expect(link?.params).toEqual(Object.fromEntries(spec.params));
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("never throws, whatever the header", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (header) => {
        expect(Array.isArray(parseLinkHeader(header, BASE))).toBe(true);
      }),
    );
  });
});
