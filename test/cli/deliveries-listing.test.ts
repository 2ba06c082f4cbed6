/**
 * What `flightwatch deliveries` prints comes partly from receivers (the body of an
 * answer becomes a failure's detail): none of it may drive the operator's terminal.
 * A hostile receiver's escape sequences — a cleared screen with a fake status line, a
 * hidden hyperlink, a clipboard write (OSC 52) — arrive as plain characters.
 */
import { describe, expect, it } from "vitest";
import { listing } from "../../src/cli/deliveries-action.js";
import { describeRecord } from "../../src/deliver/delivery-log.js";
import { httpOutcome } from "../../src/deliver/http-post.js";

const HOSTILE =
  "bad\x1b]8;;https://evil.example/\x07click here\x1b]8;;\x07 \x1b[2J\x1b[31mFAKE: all deliveries OK\x1b[0m \x1b]52;c;ZWNobyBwd25lZA==\x07\x9b2J";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe("deliveries listing", () => {
  it("keeps a receiver's escape sequences from reaching the terminal", () => {
    const outcome = httpOutcome({ kind: "response", status: 400, body: HOSTILE, headers: {} }, 0);
    const detail = "detail" in outcome ? (outcome.detail ?? "") : "";
    expect(detail).toContain("FAKE: all deliveries OK");
    expect(detail).not.toMatch(CONTROL);

    // And records stored before the detail was cleaned print clean too.
    const printed = listing(
      [
        {
          at: Date.UTC(2026, 10, 26, 9),
          id: "msg_a",
          ruleId: "partner",
          channel: "webhook",
          type: "webhook",
          flight: "KL1001\x1b[2J",
          destination: "https://partner.example.com/…",
          attempt: 1,
          result: "dead",
          reason: "bad_request",
          detail: HOSTILE,
        },
      ],
      [
        {
          id: "msg_b",
          type: "webhook",
          ruleId: "partner",
          channel: "webhook",
          flight: "KL1002",
          destination: "https://partner.example.com/…",
          reason: "bad_request",
          detail: HOSTILE,
          attempts: 1,
          createdAt: Date.UTC(2026, 10, 26, 9),
          failedAt: Date.UTC(2026, 10, 26, 9),
        },
      ],
      [],
      {},
    );
    expect(printed).toContain("FAKE: all deliveries OK");
    expect(printed).not.toMatch(CONTROL);
  });

  it("names what a replay sends again, in the listing and in the logs' line", () => {
    const record = {
      at: Date.UTC(2026, 10, 26, 9),
      id: "msg_new",
      ruleId: "partner",
      channel: "webhook",
      type: "webhook" as const,
      flight: "D:2026-11-26:KL1001",
      destination: "https://partner.example.com/…",
      attempt: 1,
      result: "delivered" as const,
      replayOf: "msg_old",
    };
    expect(listing([record], [], [], {})).toContain("attempt 1 (replay of msg_old)");
    expect(describeRecord(record)).toBe(
      "delivered partner/webhook → https://partner.example.com/… (msg_new, attempt 1, replay of msg_old)",
    );
  });

  it("says what happened on the way to a delivery (a living Slack message posted anew)", () => {
    const record = {
      at: Date.UTC(2026, 10, 26, 9),
      id: "msg_live",
      ruleId: "ops",
      channel: "slack",
      type: "slack" as const,
      flight: "D:2026-11-26:KL1001",
      destination: "Slack channel C0123ABCDEF (Web API)",
      attempt: 1,
      result: "delivered" as const,
      code: 200,
      detail:
        "the living message 1.000001 was gone (message_not_found); posted a new one in its place",
    };
    expect(listing([record], [], [], {})).toContain(
      "attempt 1 (200) — the living message 1.000001 was gone (message_not_found); posted a new one in its place",
    );
    expect(describeRecord(record)).toBe(
      "delivered ops/slack → Slack channel C0123ABCDEF (Web API) (msg_live, attempt 1): the living message 1.000001 was gone (message_not_found); posted a new one in its place",
    );
  });

  it("says its queue counts are of jobs, in which a bundle counts once", () => {
    const printed = listing([], [], [], {
      webhook: { waiting: 2, active: 1, delayed: 0, completed: 7, failed: 1 },
    });
    expect(printed).toContain("Queues (jobs: a bundle of notifications counts once):");
    expect(printed).toContain(
      "  webhook  waiting 2, active 1, delayed 0, finished (kept) 7, dead 1",
    );
    expect(printed).not.toContain("notifications waiting");
  });

  it("counts the notifications outstanding beside the jobs that carry them", () => {
    const printed = listing(
      [],
      [],
      [],
      { webhook: { waiting: 2, active: 1, delayed: 0, completed: 7, failed: 1 } },
      101,
    );
    expect(printed.trimEnd().split("\n").slice(-2)).toEqual([
      "  webhook  waiting 2, active 1, delayed 0, finished (kept) 7, dead 1",
      "  notifications waiting, retrying or being sent: 101 (the jobs above carry them)",
    ]);
  });
});
