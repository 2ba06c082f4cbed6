/**
 * Chaos: receivers fail while alerts keep coming, all in one timeline so that each
 * outage runs beside the others and beside healthy destinations:
 *
 * - the partner's webhook receiver is down for a minute (30 s connection refused,
 *   30 s answering 503): everything sent meanwhile arrives once, within one retry
 *   delay of its recovery, under the webhook-id it was first tried with;
 * - a 429 storm on one Slack webhook: `Retry-After` is honoured, nothing is lost or
 *   doubled;
 * - one mailbox answers 451 for 30 s: the mail is retried and delivered once after;
 * - one mailbox refuses for good (550 at RCPT TO), another has its mail refused at
 *   the end of DATA (554): each notification is tried exactly once and becomes a
 *   dead letter that `flightwatch deliveries` lists;
 * - meanwhile a healthy Slack webhook and a healthy mailbox get every alert within
 *   one interval plus the tolerance: no outage holds up another destination;
 * - in order: a flight of the partner's is moved and then cancelled while its webhook
 *   is down; the cancellation never arrives before, nor the gate move after it — the
 *   gate move, waiting to be retried, is superseded and folded into the cancellation,
 *   which arrives once after the recovery as `flight.cancelled` with both changes.
 */
import { describe, expect, it } from "vitest";
import { email, type Matcher, slack, webhook } from "../acceptance/deliveries.js";
import { timeline, type World } from "../acceptance/timeline.js";
import type { RcptScript, SmtpReply } from "../support/smtp-receiver.js";
import {
  type DeliveriesListing,
  departuresAtD4,
  flightNumbers,
  gateFor,
  latencyByPhase,
  listDeliveries,
  moveOwedAfterRecovery,
  owedMove,
  retryAfterBroken,
  type StormMove,
  webhookOutage,
} from "./storm-support.js";

const SLACK_BASE = "/services/T0ACCEPT/B0ACCEPT";
const RETRY = "{ delays: [1s, 2s, 5s], for: 10m }";
/** The longest retry delay (5 s) with its +20 % jitter: the bound after a recovery. */
const RETRY_BOUND_MS = 6_000;
const STORM_RETRY_AFTER_S = 2;
const STORM_429S = 6;

const W = flightNumbers("KL", 3201, 10); // partner webhook
const S = flightNumbers("KL", 3221, 9); // Slack /ops, the storm
const F = flightNumbers("KL", 3241, 13); // healthy Slack /flow and mailbox
const SOFT = flightNumbers("KL", 3261, 5); // soft@: 451 for 30 s
const HARD = flightNumbers("KL", 3271, 2); // hard@: 550 at RCPT TO
const BLOCKED = flightNumbers("KL", 3275, 1); // blocked@: 554 at the end of DATA
const ORDER = flightNumbers("KL", 3281, 1); // partner-order: moved, then cancelled while down

const list = (flights: readonly string[]) => `{ flight: [${flights.join(", ")}] }`;
const RULES = `
rules:
  - id: partner
    flights: ${list(W)}
    changes: [gate]
    channels:
      - { type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}", retry: ${RETRY} }
  - id: partner-order
    flights: ${list(ORDER)}
    changes: [gate, cancelled]
    channels:
      - { type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}", retry: ${RETRY} }
  - id: ops
    flights: ${list(S)}
    changes: [gate]
    channels:
      - { type: slack, url: "\${RULE_SLACK_URL}/ops", retry: ${RETRY} }
  - id: flow
    flights: ${list(F)}
    changes: [gate]
    channels:
      - { type: slack, url: "\${RULE_SLACK_URL}/flow" }
      - { type: email, to: [healthy@example.com] }
  - id: mail-soft
    flights: ${list(SOFT)}
    changes: [gate]
    channels:
      - { type: email, to: [soft@example.com], retry: ${RETRY} }
  - id: mail-hard
    flights: ${list(HARD)}
    changes: [gate]
    channels:
      - { type: email, to: [hard@example.com], retry: ${RETRY} }
  - id: mail-blocked
    flights: ${list(BLOCKED)}
    changes: [gate]
    channels:
      - { type: email, to: [blocked@example.com], retry: ${RETRY} }
`;

const USER_UNKNOWN: SmtpReply = { code: 550, message: "5.1.1 <hard@example.com>: user unknown" };
const GREYLISTED: SmtpReply = { code: 451, message: "4.7.1 greylisted, try again later" };
const hardOnly: RcptScript = (address) =>
  address.toLowerCase() === "hard@example.com" ? USER_UNKNOWN : undefined;
const softDeferred: RcptScript = (address, attempt) =>
  address.toLowerCase() === "soft@example.com" ? GREYLISTED : hardOnly(address, attempt);

/** Every owed move, for the log's latency summary. */
const owed: StormMove[] = [];
const note = (atMs: number, flight: string, matcher: Matcher): Matcher => {
  owed.push({ phase: `${matcher.channel}(${matcher.ruleId})`, flight, atMs, matcher });
  return matcher;
};

/** A gate move owed to `matcher(flight)` in the usual window. */
function move(
  tl: ReturnType<typeof timeline>,
  atMs: number,
  group: readonly string[],
  i: number,
  matcher: (flight: string, gate: string) => Matcher,
  window: { within?: string } = {},
): void {
  const flight = group[i] as string;
  const gate = gateFor(group, flight);
  owedMove(tl, atMs, flight, gate, note(atMs, flight, matcher(flight, gate)), window);
}

describe("chaos: receiver outages", () => {
  it("webhook down a minute, a Slack 429 storm, SMTP 4xx then recovery, SMTP 5xx dead letters — and healthy destinations keep flowing", async () => {
    let world: World | undefined;
    let listing: DeliveriesListing | undefined;
    const tl = timeline({
      name: "receiver-outages",
      cast: departuresAtD4([...W, ...S, ...F, ...SOFT, ...HARD, ...BLOCKED, ...ORDER]),
      rules: RULES,
    });
    const partner = (f: string, g: string) =>
      webhook("partner").about(f).change({ field: "gate", new: g });
    const ops = (f: string, g: string) => slack("ops").about(f).saying(g);
    const soft = (f: string, g: string) =>
      email("mail-soft").about(f).to("soft@example.com").saying(g);

    tl.at("0s").do(
      "SMTP: hard@ refused for good (550), blocked@'s mail refused at DATA (554)",
      (w) => {
        world = w;
        w.smtp.script({
          rcpt: hardOnly,
          data: (to) =>
            to.includes("blocked@example.com")
              ? { code: 554, message: "5.7.1 message refused as spam" }
              : undefined,
        });
      },
    );

    // Healthy destinations, every 6 s throughout: the usual window, both channels.
    for (let i = 0; i < F.length; i++) {
      const flight = F[i] as string;
      const gate = gateFor(F, flight);
      tl.at(`${3 + 6 * i}s`)
        .gate(flight, gate)
        .expect(note(6000 * i + 3000, flight, slack("flow").about(flight).saying(gate)))
        .expect(
          note(
            6000 * i + 3000,
            flight,
            email("flow").about(flight).to("healthy@example.com").saying(gate),
          ),
        );
    }

    // The webhook: down from 6 s, refused 30 s, then 503 for 30 s, healthy at 66 s.
    move(tl, 1_000, W, 0, partner);
    const recovered = webhookOutage(tl, {
      startMs: 6_000,
      refusedMs: 30_000,
      unavailableMs: 30_000,
    });
    [8, 16, 24, 32, 40, 48, 56, 63].forEach((s, k) => {
      const flight = W[k + 1] as string;
      const gate = gateFor(W, flight);
      moveOwedAfterRecovery(
        tl,
        { atMs: s * 1000, flight, gate, matcher: note(s * 1000, flight, partner(flight, gate)) },
        recovered,
        RETRY_BOUND_MS,
      );
    });
    move(tl, 70_000, W, 9, partner);

    // In order: moved at 12 s, cancelled at 24 s, while the webhook is down. One delivery
    // after the recovery: the cancellation, carrying the gate move it superseded.
    const orderFlight = ORDER[0] as string;
    const orderGate = gateFor(ORDER, orderFlight);
    tl.at("12s").gate(orderFlight, orderGate);
    tl.at("24s").cancel(orderFlight);
    tl.between(
      `${recovered / 1000}s`,
      `${(recovered + RETRY_BOUND_MS) / 1000 + 3}s`,
      webhook("partner-order").about(orderFlight).change({ field: "gate", new: orderGate }),
    );

    // Slack /ops: six 429s (Retry-After 2 s) from 9.5 s, while eight alerts come in
    // faster than Slack's one a second; then one more long after.
    tl.at("9.5s").do(`Slack /ops: a storm of ${STORM_429S} 429s`, (w) => {
      w.slack.script(
        `${SLACK_BASE}/ops`,
        ...Array.from({ length: STORM_429S }, () => ({
          status: 429,
          body: "rate_limited",
          retryAfter: STORM_RETRY_AFTER_S,
        })),
      );
    });
    for (let i = 0; i < 8; i++) {
      // Storm (6 × 2 s) + eight messages at one a second + margin.
      move(tl, 10_000 + 500 * i, S, i, ops, { within: "25s" });
    }
    move(tl, 45_000, S, 8, ops);

    // soft@: 451 from 20 s to 50 s; mail sent meanwhile arrives after, once.
    tl.at("20s").do("SMTP: soft@ deferred (451)", (w) => w.smtp.script({ rcpt: softDeferred }));
    tl.at("50s").do("SMTP: soft@ accepted again", (w) => w.smtp.script({ rcpt: hardOnly }));
    [22, 30, 38, 46].forEach((s, k) => {
      const flight = SOFT[k] as string;
      const gate = gateFor(SOFT, flight);
      moveOwedAfterRecovery(
        tl,
        { atMs: s * 1000, flight, gate, matcher: note(s * 1000, flight, soft(flight, gate)) },
        50_000,
        RETRY_BOUND_MS,
      );
    });
    move(tl, 55_000, SOFT, 4, soft);

    // Refused for good: nothing arrives, ever.
    tl.at("25s").gate(HARD[0] as string, gateFor(HARD, HARD[0] as string));
    tl.at("28s").gate(BLOCKED[0] as string, gateFor(BLOCKED, BLOCKED[0] as string));
    tl.at("45s").gate(HARD[1] as string, gateFor(HARD, HARD[1] as string));
    tl.nothing(email("mail-hard"));
    tl.nothing(email("mail-blocked"));

    tl.at("78s").do("flightwatch deliveries --json", async (w) => {
      listing = await listDeliveries(w);
    });

    const result = await tl.run();
    const w = world as World;
    console.log(latencyByPhase(owed, result.deliveries, result.t0).join("\n"));
    const outageFlights = new Set(W.slice(1, 9));
    const partnerLast = Math.max(
      ...result.deliveries
        .filter((d) => d.ruleId === "partner" && outageFlights.has(d.flight))
        .map((d) => d.receivedAt),
    );
    console.log(
      `webhook: the last alert owed from the outage arrived ${((partnerLast - result.t0 - recovered) / 1000).toFixed(2)} s after recovery`,
    );

    // Slack: the storm happened, and every 429's Retry-After was waited out.
    const opsRequests = w.slack.requests(`${SLACK_BASE}/ops`);
    expect(opsRequests.filter((r) => r.status === 429)).toHaveLength(STORM_429S);
    const exchanges = opsRequests.map((r) => ({
      startMs: r.receivedAt,
      endMs: r.receivedAt,
      status: r.status,
    }));
    expect(retryAfterBroken(exchanges, STORM_RETRY_AFTER_S * 1000, result.t0)).toEqual([]);

    // Webhook: every id answered 503 was delivered later (none lost), under the same
    // id; some were tried several times during the outage.
    const refused = w.webhook.deliveries.filter((d) => d.status === 503);
    const accepted = w.webhook.uniqueIds();
    expect(refused.length).toBeGreaterThan(W.length - 2);
    for (const d of refused) expect(accepted.has(d.id)).toBe(true);
    expect(new Set(refused.map((d) => d.id)).size).toBeLessThan(refused.length);

    // In order: the gate move was tried, superseded by the cancellation, never sent again;
    // the one accepted delivery is the cancellation with both changes.
    const ordered = w.webhook.deliveries.filter(
      (d) => (d.body as { data?: { rule?: { id?: string } } }).data?.rule?.id === "partner-order",
    );
    const orderAccepted = ordered.filter((d) => d.status === 204);
    expect(orderAccepted).toHaveLength(1);
    const cancelled = orderAccepted[0]?.body as {
      type: string;
      data: { changes: { field: string; state?: string; action: string }[] };
    };
    expect(cancelled.type).toBe("flight.cancelled");
    expect(cancelled.data.changes.map((c) => c.state ?? c.field)).toEqual(
      expect.arrayContaining(["gate", "CNX"]),
    );
    // (The gate move's own attempts met a refused connection: the receiver never saw it.)
    expect(new Set(ordered.map((d) => d.id))).toEqual(new Set([orderAccepted[0]?.id]));

    // SMTP: soft@ was retried; hard@ and blocked@ were tried exactly once per alert.
    expect(w.smtp.rcptCount("soft@example.com")).toBeGreaterThan(SOFT.length);
    expect(w.smtp.rcptCount("hard@example.com")).toBe(HARD.length);
    expect(w.smtp.rcptCount("blocked@example.com")).toBe(BLOCKED.length);

    // The dead letters, as an operator sees them: the three refused mails, nothing else.
    expect(listing).toBeDefined();
    const superseded = (listing as DeliveriesListing).recent.filter(
      (r) => r.result === "superseded",
    );
    expect(superseded.map((r) => r.ruleId)).toEqual(["partner-order"]);
    const dead = (listing as DeliveriesListing).deadLetters
      .map((d) => ({ ruleId: d.ruleId, reason: d.reason, attempts: d.attempts }))
      .sort((a, b) => a.ruleId.localeCompare(b.ruleId));
    expect(dead).toEqual([
      { ruleId: "mail-blocked", reason: "smtp_permanent", attempts: 1 },
      { ruleId: "mail-hard", reason: "smtp_permanent", attempts: 1 },
      { ruleId: "mail-hard", reason: "smtp_permanent", attempts: 1 },
    ]);
  });
});
