/**
 * The connect-time half of the outbound policy: an undici Agent whose connector checks
 * the address a socket is about to connect to. A URL's literal address is checked
 * before connecting (Node does not look literals up); a host name is resolved through
 * a `lookup` that drops the addresses the policy refuses, so the socket can only ever
 * reach an allowed one — whatever DNS answered at load time, or a moment ago (DNS
 * rebinding). When nothing allowed is left the connect fails with a
 * DestinationRefusedError (FW_ERR_DESTINATION_REFUSED) and no connection is made.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";
import { DestinationRefusedError } from "../errors.js";
import type { OutboundPolicy } from "./outbound-policy.js";

/** How a guarded agent resolves and pools. */
export interface GuardedAgentOptions extends Omit<Agent.Options, "connect"> {
  /** Resolver; `dns.lookup` by default (tests inject one that answers what they need). */
  lookup?: LookupFunction;
}

/** An undici Agent that connects only to destinations the policy allows. */
export function guardedAgent(policy: OutboundPolicy, options: GuardedAgentOptions = {}): Agent {
  const { lookup, ...agentOptions } = options;
  return new Agent({ ...agentOptions, connect: guardedConnector(policy, lookup) });
}

/** undici's own connector, with the policy checked on the literal or resolved address. */
export function guardedConnector(
  policy: OutboundPolicy,
  lookup: LookupFunction = dnsLookup as LookupFunction,
): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(policy, lookup) });
  return (options, callback) => {
    // undici has taken the brackets off an IPv6 literal already.
    if (isIP(options.hostname) !== 0) {
      const refusal = policy.refusalOfAddress(options.hostname);
      if (refusal !== undefined) {
        const err = new DestinationRefusedError(
          options.hostname,
          options.hostname,
          `destination refused: ${refusal.message}; ${refusal.hint}`,
        );
        process.nextTick(() => callback(err, null));
        return;
      }
    }
    connect(options, callback);
  };
}

/**
 * A `lookup` for `net.connect` that keeps only the allowed addresses of the answer, in
 * its order; with none left it fails, naming the first refused address.
 */
export function guardedLookup(policy: OutboundPolicy, lookup: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, answer) => {
      if (err) {
        callback(err, "", 0);
        return;
      }
      const all: LookupAddress[] = Array.isArray(answer)
        ? answer
        : [{ address: answer, family: isIP(answer) }];
      const allowed = all.filter((a) => policy.refusalOfAddress(a.address, hostname) === undefined);
      const first = allowed[0];
      if (first === undefined) {
        const refused = all[0]?.address ?? "no address";
        const refusal = policy.refusalOfAddress(refused, hostname);
        const reason = refusal ? `${refusal.message}; ${refusal.hint}` : "no address";
        callback(
          new DestinationRefusedError(refused, hostname, `destination refused: ${reason}`),
          "",
          0,
        );
        return;
      }
      if (options.all) callback(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}
