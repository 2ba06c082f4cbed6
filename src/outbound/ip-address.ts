/**
 * IP addresses as bytes, CIDR blocks, and the class of an address: public, or one of
 * the special-purpose kinds (loopback, private, link-local, …) that a notification
 * must not reach unless the operator allows it. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped and -compatible, NAT64, 6to4) take the class of the address they carry.
 */
import { isIPv4, isIPv6 } from "node:net";

/** An address: 4 or 16 bytes. */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

/** A block of addresses: a network address and its prefix length. */
export interface Cidr {
  address: IpAddress;
  prefix: number;
}

/** What kind of destination an address is; everything but `public` is refused by default. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "unspecified"
  | "shared"
  | "multicast"
  | "reserved";

/** How each class reads in a message ("127.0.0.1 is a loopback address"). */
export const CLASS_TEXT: Readonly<Record<AddressClass, string>> = {
  public: "a public address",
  loopback: "a loopback address",
  private: "a private-network address",
  "link-local": "a link-local address",
  unspecified: "the unspecified address (this host)",
  shared: "a carrier-grade NAT address (100.64.0.0/10)",
  multicast: "a multicast or broadcast address",
  reserved: "a reserved (special-purpose) address",
};

/**
 * Parses an address as written by `new URL()` or a resolver: dotted IPv4, or IPv6 with
 * or without brackets and zone (`[fe80::1%eth0]`). Undefined for anything else.
 */
export function parseIp(text: string): IpAddress | undefined {
  let t = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = t.indexOf("%");
  if (zone >= 0) t = t.slice(0, zone);
  if (isIPv4(t)) return { version: 4, bytes: Uint8Array.from(t.split(".").map(Number)) };
  if (!isIPv6(t)) return undefined;
  // A trailing dotted IPv4 (`::ffff:127.0.0.1`) is two more 16-bit words.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(t);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    t = `${t.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const words = (s: string | undefined) =>
    s ? s.split(":").map((w) => Number.parseInt(w, 16)) : [];
  const [head, tail] = t.split("::");
  const front = words(head);
  const back = words(tail);
  const all =
    tail === undefined
      ? front
      : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((word, i) => {
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return { version: 6, bytes };
}

/** The address in its usual text form (dotted IPv4, compressed lower-case IPv6). */
export function formatIp(address: IpAddress): string {
  if (address.version === 4) return address.bytes.join(".");
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2)
    words.push(((address.bytes[i] ?? 0) << 8) | (address.bytes[i + 1] ?? 0));
  // The longest run of two or more zero words becomes `::`.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j === i ? i + 1 : j;
  }
  const hex = (ws: number[]) => ws.map((w) => w.toString(16)).join(":");
  if (best < 0) return hex(words);
  return `${hex(words.slice(0, best))}::${hex(words.slice(best + bestLen))}`;
}

/** Parses `a.b.c.d/n` or `x::/n`; undefined when it is not one. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  const address = parseIp(slash < 0 ? text : text.slice(0, slash));
  if (address === undefined) return undefined;
  const max = address.version === 4 ? 32 : 128;
  if (slash < 0) return { address, prefix: max };
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { address, prefix: Number(bits) };
}

/** Whether `address` lies in `cidr` (same IP version only). */
export function inCidr(address: IpAddress, cidr: Cidr): boolean {
  if (address.version !== cidr.address.version) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((address.bytes[i] ?? 0) & mask) !== ((cidr.address.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Whether the block's address has bits set past its prefix (`10.20.0.5/16`). */
export function hasHostBits(cidr: Cidr): boolean {
  const { bytes } = cidr.address;
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, cidr.prefix - i * 8));
    if (((bytes[i] ?? 0) & ~((0xff << (8 - keep)) & 0xff) & 0xff) !== 0) return true;
  }
  return false;
}

/** The block's network address (host bits cleared), for a did-you-mean. */
export function networkOf(cidr: Cidr): Cidr {
  const bytes = Uint8Array.from(cidr.address.bytes, (b, i) => {
    const keep = Math.max(0, Math.min(8, cidr.prefix - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
  return { address: { version: cidr.address.version, bytes }, prefix: cidr.prefix };
}

const block = (text: string): Cidr => parseCidr(text) as Cidr;

/** IPv4 special-purpose blocks (IANA registry), first match wins. */
const V4_CLASSES: readonly [Cidr, AddressClass][] = [
  [block("0.0.0.0/8"), "unspecified"],
  [block("10.0.0.0/8"), "private"],
  [block("100.64.0.0/10"), "shared"],
  [block("127.0.0.0/8"), "loopback"],
  [block("169.254.0.0/16"), "link-local"],
  [block("172.16.0.0/12"), "private"],
  [block("192.0.0.0/24"), "reserved"],
  [block("192.0.2.0/24"), "reserved"],
  [block("192.88.99.0/24"), "reserved"],
  [block("192.168.0.0/16"), "private"],
  [block("198.18.0.0/15"), "reserved"],
  [block("198.51.100.0/24"), "reserved"],
  [block("203.0.113.0/24"), "reserved"],
  [block("224.0.0.0/4"), "multicast"],
  [block("240.0.0.0/4"), "reserved"],
];

/** IPv6 blocks that carry an IPv4 address in their last 32 bits (6to4: bits 16–48). */
const V6_CARRIERS: readonly Cidr[] = [
  block("::ffff:0:0/96"), // IPv4-mapped
  block("::/96"), // IPv4-compatible (deprecated)
  block("64:ff9b::/96"), // NAT64, well-known prefix
];
const SIX_TO_FOUR = block("2002::/16");

/** IPv6 special-purpose blocks, checked after the carriers; outside 2000::/3 is reserved. */
const V6_CLASSES: readonly [Cidr, AddressClass][] = [
  [block("::/128"), "unspecified"],
  [block("::1/128"), "loopback"],
  [block("64:ff9b:1::/48"), "private"], // NAT64 for local use
  [block("fc00::/7"), "private"],
  [block("fec0::/10"), "private"], // site-local (deprecated)
  [block("fe80::/10"), "link-local"],
  [block("ff00::/8"), "multicast"],
  [block("2001::/23"), "reserved"], // IETF protocol assignments, Teredo
  [block("2001:db8::/32"), "reserved"], // documentation
];
const GLOBAL_UNICAST = block("2000::/3");

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.version !== 6) return undefined;
  const { bytes } = address;
  // `::` and `::1` are in ::/96 but are addresses of their own.
  if (inCidr(address, block("::/127"))) return undefined;
  if (V6_CARRIERS.some((c) => inCidr(address, c))) {
    return { version: 4, bytes: bytes.slice(12, 16) };
  }
  if (inCidr(address, SIX_TO_FOUR)) return { version: 4, bytes: bytes.slice(2, 6) };
  return undefined;
}

/** The class of an address; an IPv6 address carrying an IPv4 one has that one's class. */
export function classify(address: IpAddress): AddressClass {
  if (address.version === 4) {
    return V4_CLASSES.find(([c]) => inCidr(address, c))?.[1] ?? "public";
  }
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return classify(v4);
  const special = V6_CLASSES.find(([c]) => inCidr(address, c))?.[1];
  if (special !== undefined) return special;
  return inCidr(address, GLOBAL_UNICAST) ? "public" : "reserved";
}
