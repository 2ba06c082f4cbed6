/**
 * Webhook and Slack URLs that point inside: refused when rules load, each address class
 * and every numeric spelling of one, with the file, line, column, rule and field; URLs
 * with credentials always; what OUTBOUND_ALLOW lists is let through.
 */
import { describe, expect, it } from "vitest";
import { readOutboundAllow } from "../../../src/outbound/outbound-policy.js";
import { load, oneRule, problemOf } from "./rule-text.js";

/** A file whose rule `r` has a `type` channel with `url` on line 4, column 31 (29 for slack). */
const fileWith = (url: string, type = "webhook") =>
  `rules:\n  - id: r\n    channels:\n      - { type: ${type}, url: "${url}" }\n`;

describe("channel URLs refused at load", () => {
  it.each([
    ["loopback", "https://127.0.0.1/h", "127.0.0.1 is a loopback address"],
    ["loopback, elsewhere in 127/8", "https://127.9.8.7:8443/h", "127.9.8.7 is a loopback address"],
    ["loopback, short form", "http://127.1/h", "127.0.0.1 is a loopback address"],
    ["loopback, one number", "http://2130706433/h", "127.0.0.1 is a loopback address"],
    ["loopback, hex", "http://0x7f.1/h", "127.0.0.1 is a loopback address"],
    ["loopback, octal", "http://0177.0.0.1/h", "127.0.0.1 is a loopback address"],
    ["loopback, IPv6", "https://[::1]/h", "::1 is a loopback address"],
    ["localhost", "https://localhost:8443/h", "localhost is a loopback address"],
    [
      "a name under localhost",
      "https://hooks.localhost/h",
      "hooks.localhost is a loopback address",
    ],
    ["private 10/8", "https://10.0.0.8/h", "10.0.0.8 is a private-network address"],
    ["private 172.16/12", "https://172.20.1.1/h", "172.20.1.1 is a private-network address"],
    ["private 192.168/16", "https://192.168.0.10/h", "192.168.0.10 is a private-network address"],
    ["unique local IPv6", "https://[fd00::10]/h", "fd00::10 is a private-network address"],
    [
      "cloud metadata",
      "http://169.254.169.254/latest/meta-data/",
      "169.254.169.254 is a link-local address (the cloud metadata service)",
    ],
    ["link-local IPv6", "https://[fe80::1]/h", "fe80::1 is a link-local address"],
    ["unspecified", "https://0.0.0.0/h", "0.0.0.0 is the unspecified address (this host)"],
    ["unspecified IPv6", "https://[::]/h", ":: is the unspecified address (this host)"],
    ["CGNAT", "https://100.64.0.1/h", "100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10)"],
    ["multicast", "https://224.0.0.251/h", "224.0.0.251 is a multicast or broadcast address"],
    ["broadcast", "https://255.255.255.255/h", "255.255.255.255 is a reserved"],
    [
      "documentation range",
      "https://192.0.2.1/h",
      "192.0.2.1 is a reserved (special-purpose) address",
    ],
    [
      "IPv4-mapped IPv6",
      "http://[::ffff:127.0.0.1]/h",
      "::ffff:7f00:1 (carrying the IPv4 address 127.0.0.1) is a loopback address",
    ],
    [
      "IPv4-compatible IPv6",
      "https://[::169.254.169.254]/h",
      "::a9fe:a9fe (carrying the IPv4 address 169.254.169.254) is a link-local address",
    ],
    [
      "NAT64",
      "https://[64:ff9b::10.1.1.1]/h",
      "64:ff9b::a01:101 (carrying the IPv4 address 10.1.1.1) is a private-network address",
    ],
  ])("%s: %s", (_what, url, message) => {
    for (const type of ["webhook", "slack"]) {
      expect(problemOf(fileWith(url, type), {}, "rules/hooks.yaml")).toMatchObject({
        file: "rules/hooks.yaml",
        line: 4,
        column: 31 + type.length - "webhook".length,
        ruleId: "r",
        path: "rules[0].channels[0].url",
        message: expect.stringContaining(`\`url\` is refused: ${message}`),
        hint: expect.stringMatching(/add .+ to OUTBOUND_ALLOW/),
      });
    }
  });

  it.each([
    "https://user:secret@hooks.example.com/h",
    "https://user@hooks.example.com/h",
    "https://:secret@hooks.example.com/h",
  ])("credentials, even for an allowed host: %s", (url) => {
    const everything = readOutboundAllow({ OUTBOUND_ALLOW: "0.0.0.0/0,::/0,hooks.example.com" });
    const problems = load(fileWith(url), {}, "t.yaml", everything).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      line: 4,
      path: "rules[0].channels[0].url",
      message: expect.stringContaining("`url` is refused: the URL has credentials in it"),
      hint: expect.stringContaining("`secret`"),
    });
    expect(JSON.stringify(problems)).not.toContain("secret@");
  });

  it("a variable holding an internal URL is refused where the variable is used", () => {
    expect(
      problemOf(fileWith(`\${HOOK_URL}`), { HOOK_URL: "http://169.254.169.254/latest/" }),
    ).toMatchObject({ line: 4, message: expect.stringContaining("cloud metadata service") });
  });

  it("leaves host names to the send (no DNS when rules load)", () => {
    expect(oneRule(fileWith("https://hooks.internal.example/h")).channels[0]).toMatchObject({
      url: "https://hooks.internal.example/h",
    });
  });
});

describe("OUTBOUND_ALLOW lets listed destinations through", () => {
  const outbound = readOutboundAllow({
    OUTBOUND_ALLOW: "127.0.0.1/32,10.20.0.0/16,fd00:1::/32,hooks.internal",
  });
  it.each([
    "http://127.0.0.1:9000/h",
    "http://127.1:9000/h",
    "http://[::ffff:127.0.0.1]:9000/h",
    "https://10.20.3.4/h",
    "http://10.20.3.4/h",
    "https://[fd00:1::5]/h",
    "http://hooks.internal/h",
    "http://localhost:9000/h",
  ])("%s", (url) => {
    const read = load(fileWith(url), {}, "t.yaml", outbound);
    expect(read.problems).toEqual([]);
    expect(read.rules[0]?.channels[0]).toMatchObject({ url });
  });

  it.each([
    ["https://10.21.0.1/h", "10.21.0.1 is a private-network address"],
    ["https://127.0.0.2/h", "127.0.0.2 is a loopback address"],
    ["https://169.254.169.254/h", "cloud metadata service"],
  ])("and nothing else: %s", (url, message) => {
    const read = load(fileWith(url), {}, "t.yaml", outbound);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0]?.message).toContain(message);
  });
});
