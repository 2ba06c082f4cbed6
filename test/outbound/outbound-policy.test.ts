/** The outbound policy: address classes, OUTBOUND_ALLOW, and what it refuses in a URL or at an address. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readDaemonConfig } from "../../src/config/daemon-config.js";
import { ConfigError, ConfigProblemsError } from "../../src/errors.js";
import { classify, formatIp, parseIp } from "../../src/outbound/ip-address.js";
import { OutboundPolicy, readOutboundAllow } from "../../src/outbound/outbound-policy.js";

const allow = (text: string) => readOutboundAllow({ OUTBOUND_ALLOW: text });
const classOf = (text: string) => classify(parseIp(text) ?? fail(text));
const fail = (text: string): never => {
  throw new Error(`not an address: ${text}`);
};

describe("address classes", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fd12:3456::1", "private"],
    ["fc00::1", "private"],
    ["169.254.169.254", "link-local"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["::", "unspecified"],
    ["100.64.0.1", "shared"],
    ["100.127.255.254", "shared"],
    ["224.0.0.1", "multicast"],
    ["239.1.1.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "reserved"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["8.8.8.8", "public"],
    ["172.32.0.1", "public"],
    ["100.128.0.1", "public"],
    ["2606:4700:4700::1111", "public"],
    ["64:ff9b::808:808", "public"],
    ["::ffff:8.8.8.8", "public"],
  ])("%s is %s", (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });

  it("formats what it parses back to Node's own form", () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const ip = parseIp(text);
        expect(ip).toBeDefined();
        const url = new URL(`http://[${text}]/`).hostname.slice(1, -1);
        expect(formatIp(ip as NonNullable<typeof ip>)).toBe(url);
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), (text) => {
        expect(formatIp(parseIp(text) as NonNullable<ReturnType<typeof parseIp>>)).toBe(text);
      }),
    );
  });
});

describe("OUTBOUND_ALLOW", () => {
  it("takes addresses, CIDR blocks and host names, and ignores empty entries", () => {
    const policy = allow(" 127.0.0.1 , 10.20.0.0/16,,fd00::/8,[::1],Hooks.Internal.,*.svc.local,");
    expect(String(policy)).toBe(
      "127.0.0.1/32,10.20.0.0/16,fd00::/8,::1/128,hooks.internal,*.svc.local",
    );
    expect(policy.strict).toBe(false);
    expect(readOutboundAllow({}).strict).toBe(true);
    expect(readOutboundAllow({ OUTBOUND_ALLOW: " " }).strict).toBe(true);
  });

  it.each([
    [
      "10.20.0.5/16",
      /"10.20.0.5\/16" has bits set after its \/16 prefix; did you mean 10.20.0.0\/16\?/,
    ],
    ["10.0.0.0/33", /"10.0.0.0\/33" is not an address or CIDR block/],
    ["300.1.1.1", /"300.1.1.1" is not an address or CIDR block/],
    ["fd00::/129", /"fd00::\/129" is not an address or CIDR block/],
    ["http://hooks.internal", /"http:\/\/hooks.internal" is not an address or CIDR block/],
    ["hooks internal", /"hooks internal" is neither a CIDR block nor a host name/],
    ["*", /"\*" is neither a CIDR block nor a host name/],
  ])("refuses %s, naming the variable and the entry", (entry, message) => {
    let error: unknown;
    try {
      allow(`127.0.0.1,${entry}`);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: "FW_ERR_CONFIG_INVALID", setting: "OUTBOUND_ALLOW" });
    expect((error as Error).message).toMatch(/^OUTBOUND_ALLOW: /);
    expect((error as Error).message).toMatch(message);
  });
});

describe("refusals", () => {
  it("refuses an internal address and allows a public one by default", () => {
    const strict = OutboundPolicy.STRICT;
    expect(strict.refusalOfAddress("93.184.215.14")).toBeUndefined();
    expect(strict.refusalOfAddress("169.254.169.254")).toMatchObject({
      message: "169.254.169.254 is a link-local address (the cloud metadata service)",
      hint: expect.stringContaining("add 169.254.169.254 to OUTBOUND_ALLOW"),
      addressClass: "link-local",
    });
    expect(strict.refusalOfAddress("::ffff:7f00:1", "hooks.example.com")).toMatchObject({
      message:
        "hooks.example.com resolved to ::ffff:7f00:1 (carrying the IPv4 address 127.0.0.1), a loopback address",
    });
  });

  it("allows what the list names: a block, an address it carries, or the name resolved", () => {
    const policy = allow("10.20.0.0/16,127.0.0.1,hooks.internal,*.svc.local");
    expect(policy.refusalOfAddress("10.20.3.4")).toBeUndefined();
    expect(policy.refusalOfAddress("::ffff:10.20.3.4")).toBeUndefined();
    expect(policy.refusalOfAddress("127.0.0.1")).toBeUndefined();
    expect(policy.refusalOfAddress("10.21.0.1")).toBeDefined();
    expect(policy.refusalOfAddress("127.0.0.2")).toBeDefined();
    expect(policy.refusalOfAddress("192.168.1.9", "hooks.internal")).toBeUndefined();
    expect(policy.refusalOfAddress("192.168.1.9", "HOOKS.internal.")).toBeUndefined();
    expect(policy.refusalOfAddress("192.168.1.9", "a.b.svc.local")).toBeUndefined();
    expect(policy.refusalOfAddress("192.168.1.9", "svc.local")).toBeDefined();
    expect(policy.refusalOfAddress("192.168.1.9", "other.internal")).toBeDefined();
  });

  it("refuses credentials in a URL whatever the list says", () => {
    const policy = allow("0.0.0.0/0,::/0,hooks.internal");
    for (const url of [
      "https://user:pass@hooks.internal/x",
      "https://user@example.com/x",
      "https://:pass@example.com/x",
    ]) {
      expect(policy.refusalOfUrl(new URL(url))?.message).toMatch(/has credentials in it/);
    }
  });

  it("refuses localhost names unless loopback or the name is allowed", () => {
    for (const host of ["localhost", "LOCALHOST.", "hooks.localhost"]) {
      const url = new URL(`https://${host}/x`);
      expect(OutboundPolicy.STRICT.refusalOfUrl(url)?.addressClass).toBe("loopback");
      expect(allow("127.0.0.1").refusalOfUrl(url)).toBeUndefined();
      expect(allow("127.0.0.1").vouchesFor(url)).toBe(true);
    }
    expect(allow("localhost").refusalOfUrl(new URL("https://localhost/x"))).toBeUndefined();
    // Other names are resolved only when a send connects.
    expect(OutboundPolicy.STRICT.refusalOfUrl(new URL("https://hooks.internal/x"))).toBeUndefined();
    expect(OutboundPolicy.STRICT.vouchesFor(new URL("http://hooks.internal/x"))).toBe(false);
  });
});

describe("OUTBOUND_ALLOW in the daemon's configuration", () => {
  const BASE = { FLIGHT_API_BASE_URL: "https://api.example/public-flights/v4" };

  it("is strict when unset, and the list when set", () => {
    expect(readDaemonConfig(BASE).outbound.strict).toBe(true);
    expect(String(readDaemonConfig({ ...BASE, OUTBOUND_ALLOW: "10.0.0.0/8" }).outbound)).toBe(
      "10.0.0.0/8",
    );
  });

  it("is one of the problems a start reports together, naming the variable and the entry", () => {
    let error: unknown;
    try {
      readDaemonConfig({ ...BASE, OUTBOUND_ALLOW: "127.0.0.1,hooks internal", LOG_LEVEL: "loud" });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigProblemsError);
    const problems = (error as ConfigProblemsError).problems;
    expect(problems.map((p) => p.setting).sort()).toEqual(["LOG_LEVEL", "OUTBOUND_ALLOW"]);
    expect((error as Error).message).toContain('OUTBOUND_ALLOW: "hooks internal" is neither');
  });
});
