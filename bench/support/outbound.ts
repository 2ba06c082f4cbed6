/**
 * Tests' receivers (webhook, Slack, the upstream) are real servers on 127.0.0.1, which
 * flightwatch refuses to send to by default: every test that delivers allows loopback
 * explicitly, with the setting an operator would use (OUTBOUND_ALLOW).
 */
import { type OutboundPolicy, readOutboundAllow } from "../../src/outbound/outbound-policy.js";

/** The allow-list of the tests' loopback receivers. */
export const LOOPBACK_ALLOW = "127.0.0.1";

/** The environment of a CLI child that delivers to loopback receivers. */
export const LOOPBACK_ENV: Readonly<Record<string, string>> = { OUTBOUND_ALLOW: LOOPBACK_ALLOW };

/** The policy of in-process senders and rule loads that reach loopback receivers. */
export const LOOPBACK_OUTBOUND: OutboundPolicy = readOutboundAllow(LOOPBACK_ENV);
