/**
 * Which destinations notifications may be sent to. By default only public addresses:
 * loopback, private, link-local (the cloud metadata address), unspecified, CGNAT,
 * multicast and reserved addresses are refused, and so is every URL with credentials
 * in it. `OUTBOUND_ALLOW` lists the internal CIDRs and host names that are allowed
 * anyway (receivers on the operator's own network, tests on loopback). Rule files are
 * checked against the policy when they load (literal addresses, `localhost`); the
 * address a host name resolves to is checked when a send connects (guarded-agent.ts).
 */
import { ConfigError } from "../errors.js";
import {
  type AddressClass,
  type Cidr,
  CLASS_TEXT,
  classify,
  embeddedIpv4,
  formatIp,
  hasHostBits,
  type IpAddress,
  inCidr,
  networkOf,
  parseCidr,
  parseIp,
} from "./ip-address.js";

/** The configuration variable of the allow-list. */
export const OUTBOUND_ALLOW = "OUTBOUND_ALLOW";

/** Why a destination is refused, and how to fix it. */
export interface Refusal {
  message: string;
  hint: string;
  /** The class of the refused address; undefined for credentials in a URL. */
  addressClass?: AddressClass;
}

const HOST_RE =
  /^(?:\*\.)?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/;
const LOOPBACK_V4 = parseIp("127.0.0.1") as IpAddress;
const LOOPBACK_V6 = parseIp("::1") as IpAddress;

/** What may be reached besides public addresses. */
export class OutboundPolicy {
  /** Nothing internal allowed: the default. */
  static readonly STRICT = new OutboundPolicy([], []);

  readonly #cidrs: readonly Cidr[];
  /** Exact names, and `*.suffix` entries kept as `.suffix`. */
  readonly #names: readonly string[];

  constructor(cidrs: readonly Cidr[], names: readonly string[]) {
    this.#cidrs = cidrs;
    this.#names = names.map((n) => (n.startsWith("*.") ? n.slice(1) : n));
  }

  /** Whether the allow-list is empty. */
  get strict(): boolean {
    return this.#cidrs.length === 0 && this.#names.length === 0;
  }

  /** Whether a host name is listed (exactly, or under a `*.` entry). */
  allowsName(hostname: string): boolean {
    const name = normalName(hostname);
    return this.#names.some((n) => (n.startsWith(".") ? name.endsWith(n) : name === n));
  }

  /** Whether an address lies in a listed block (or carries an IPv4 address that does). */
  allowsAddress(address: IpAddress): boolean {
    const v4 = embeddedIpv4(address);
    return this.#cidrs.some((c) => inCidr(address, c) || (v4 !== undefined && inCidr(v4, c)));
  }

  /**
   * Why a connection to `address` is refused, or undefined when it may go ahead: a
   * public address, or one the allow-list covers by block or by the host name it was
   * resolved from.
   */
  refusalOfAddress(address: string, hostname?: string): Refusal | undefined {
    const ip = parseIp(address);
    if (ip === undefined) {
      return { message: `${address} is not an IP address`, hint: "report this as a bug" };
    }
    const addressClass = classify(ip);
    if (addressClass === "public") return undefined;
    if (this.allowsAddress(ip) || (hostname !== undefined && this.allowsName(hostname))) {
      return undefined;
    }
    const via = hostname !== undefined && parseIp(hostname) === undefined;
    const v4 = embeddedIpv4(ip);
    const carried = v4 === undefined ? "" : ` (carrying the IPv4 address ${formatIp(v4)})`;
    return {
      message: `${via ? `${hostname} resolved to ${address}${carried}, ` : `${address}${carried} is `}${CLASS_TEXT[addressClass]}${metadataNote(ip)}`,
      hint: allowHint(via ? `${address}/${ip.version === 4 ? 32 : 128} or ${hostname}` : address),
      addressClass,
    };
  }

  /**
   * Why a URL is refused before any lookup, or undefined: credentials in it (always
   * refused), a literal address the policy refuses, or a `localhost` name. Other names
   * are checked when a send resolves them.
   */
  refusalOfUrl(url: URL): Refusal | undefined {
    if (url.username !== "" || url.password !== "") {
      return {
        message:
          "the URL has credentials in it (user:password@), which would be sent with every notification and shown wherever the URL is",
        hint: "remove them; sign webhooks with `secret` instead, or put a token in the URL's path or query",
      };
    }
    const host = url.hostname;
    if (parseIp(host) !== undefined) return this.refusalOfAddress(host.replace(/^\[|\]$/g, ""));
    if (isLocalhostName(host) && !this.allowsName(host) && !this.#allowsLoopback()) {
      return {
        message: `${host} is ${CLASS_TEXT.loopback}`,
        hint: allowHint(host),
        addressClass: "loopback",
      };
    }
    return undefined;
  }

  /**
   * Whether the operator vouched for this URL's host: a listed name, or a literal
   * address in a listed block. Plain http is allowed only to such hosts.
   */
  vouchesFor(url: URL): boolean {
    const host = url.hostname;
    const ip = parseIp(host);
    if (ip !== undefined) return this.allowsAddress(ip);
    if (this.allowsName(host)) return true;
    return isLocalhostName(host) && this.#allowsLoopback();
  }

  /** The allow-list as written in OUTBOUND_ALLOW (normalised), for logs. */
  toString(): string {
    return [
      ...this.#cidrs.map((c) => `${formatIp(c.address)}/${c.prefix}`),
      ...this.#names.map((n) => (n.startsWith(".") ? `*${n}` : n)),
    ].join(",");
  }

  #allowsLoopback(): boolean {
    return this.allowsAddress(LOOPBACK_V4) || this.allowsAddress(LOOPBACK_V6);
  }
}

/**
 * Reads `OUTBOUND_ALLOW`: comma-separated CIDR blocks (`10.20.0.0/16`), single
 * addresses (`127.0.0.1`, `::1`) and host names (`hooks.internal`, `*.svc.cluster.local`).
 * Throws a ConfigError naming the variable and the bad entry.
 */
export function readOutboundAllow(
  env: Readonly<Record<string, string | undefined>>,
): OutboundPolicy {
  const text = env[OUTBOUND_ALLOW]?.trim();
  if (!text) return OutboundPolicy.STRICT;
  const cidrs: Cidr[] = [];
  const names: string[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const bare = entry.startsWith("[") && entry.includes("]") ? entry.replace(/[[\]]/g, "") : entry;
    const cidr = parseCidr(bare);
    if (cidr !== undefined) {
      if (hasHostBits(cidr)) {
        const net = networkOf(cidr);
        throw new ConfigError(
          OUTBOUND_ALLOW,
          `"${entry}" has bits set after its /${cidr.prefix} prefix; did you mean ${formatIp(net.address)}/${net.prefix}?`,
        );
      }
      cidrs.push(cidr);
    } else if (/^[\d.]+(?:\/.*)?$|[:/]/.test(bare)) {
      throw new ConfigError(
        OUTBOUND_ALLOW,
        `"${entry}" is not an address or CIDR block; write e.g. 127.0.0.1, 10.20.0.0/16 or fd00::/8`,
      );
    } else if (HOST_RE.test(normalName(bare))) {
      names.push(normalName(bare));
    } else {
      throw new ConfigError(
        OUTBOUND_ALLOW,
        `"${entry}" is neither a CIDR block nor a host name; write comma-separated entries such as 127.0.0.1/32,10.20.0.0/16,hooks.internal`,
      );
    }
  }
  return new OutboundPolicy(cidrs, names);
}

/** `localhost` and names under it always mean this host (RFC 6761). */
function isLocalhostName(hostname: string): boolean {
  const name = normalName(hostname);
  return name === "localhost" || name.endsWith(".localhost");
}

function normalName(hostname: string): string {
  const name = hostname.toLowerCase();
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

function metadataNote(ip: IpAddress): string {
  const v4 = ip.version === 4 ? ip : embeddedIpv4(ip);
  return v4 !== undefined && formatIp(v4) === "169.254.169.254"
    ? " (the cloud metadata service)"
    : "";
}

function allowHint(entry: string): string {
  return `internal receivers must be allowed explicitly: add ${entry} to ${OUTBOUND_ALLOW} (docs/operations.md)`;
}
