/**
 * A living Slack message through the real daemon, against a loopback look-alike of
 * Slack's Web API (SLACK_API_URL): the first gate change of a flight posts one message
 * showing the flight, each change is a reply in its thread, and the message is updated
 * in place to the flight as it is now; a second flight has a message of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SlackApi, startSlackApi } from "../support/slack-api.js";
import { departure } from "./cast.js";
import { timeline } from "./timeline.js";

const CHANNEL = "C0ACCEPT01";

describe("acceptance: living Slack messages", () => {
  let api: SlackApi;
  beforeAll(async () => {
    api = await startSlackApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  it("post one message per flight, update it in place, and thread each change", async () => {
    const tl = timeline({
      name: "living",
      cast: [
        departure("KL1941", { gate: "D4", in: "3h" }),
        departure("KL1942", { gate: "D5", in: "3h" }),
      ],
      rules: `
rules:
  - id: board
    changes: [gate]
    channels: [{ type: slack, token: xoxb-1-2-acceptance, channel: ${CHANNEL} }]
`,
      env: { SLACK_API_URL: api.url },
      // Slack is no channel the timeline's receivers read: the look-alike is checked below.
      strict: false,
    });
    tl.at("0s").gate("KL1941", "D6");
    tl.at("4s").gate("KL1941", "D8");
    tl.at("8s").gate("KL1942", "D9");
    await tl.run();
    const top = api.topLevel(CHANNEL);
    expect(top).toHaveLength(2);
    const [first, second] = top;
    expect(first?.text).toMatch(/^KL1941 .*Gate D8/);
    expect(first?.edits).toBe(1);
    expect(api.replies(first?.ts as string).map((r) => r.text)).toEqual([
      expect.stringMatching(/gate D4 → D6/),
      expect.stringMatching(/gate D6 → D8/),
    ]);
    expect(second?.text).toMatch(/^KL1942 .*Gate D9/);
    expect(api.replies(second?.ts as string)).toHaveLength(1);
    // The bot token went as a bearer token, and nowhere else.
    expect(api.calls().every((c) => c.token === "xoxb-1-2-acceptance")).toBe(true);
  }, 120_000);
});
