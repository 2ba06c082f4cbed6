/**
 * Passenger subscriptions, added and removed with the real CLI while the daemon runs:
 * Anna follows her flight by the codeshare number on her ticket, by email, with the
 * essentials preset; an app backend follows the same flight by webhook. A change of
 * the flight reaches both — the mail names the flight by Anna's number — a delay under
 * 15 minutes reaches neither, and once Anna is unsubscribed only the app hears more.
 * The rule files' own rules go on as before beside them.
 */
import { expect as assert, describe, it } from "vitest";
import { spawnCli } from "../support/cli-process.js";
import { TEST_REDIS_URL } from "../support/redis.js";
import { departure } from "./cast.js";
import { email, webhook } from "./deliveries.js";
import { timeline, WEBHOOK_SECRET, type World } from "./timeline.js";

const RULES = `
rules:
  - id: ops-gates
    flights: { flight: KL1871 }
    changes: [gate]
    channels: [{ type: webhook, url: "\${RULE_WEBHOOK_URL}", secret: "\${RULE_WEBHOOK_SECRET}" }]
`;

/** Runs `flightwatch subscriptions <args>` against the timeline's Redis; fails on a non-zero exit. */
async function subscriptions(w: World, ...args: string[]): Promise<string> {
  const proc = spawnCli(["subscriptions", ...args], {
    REDIS_URL: TEST_REDIS_URL,
    FLIGHTWATCH_PREFIX: w.redis.prefix,
    AIRPORT_TIMEZONE: "Europe/Amsterdam",
  });
  const code = await proc.exited;
  if (code !== 0)
    throw new Error(`subscriptions ${args.join(" ")}: exit ${code}\n${proc.stderr()}`);
  return proc.stdout();
}

describe("acceptance: passenger subscriptions", () => {
  it("sends what a subscription asks for, by email and webhook, until it is removed", async () => {
    const tl = timeline({
      name: "subscriptions",
      cast: [
        departure("KL1870", { gate: "D4", in: "2h", codeshares: ["DL9870"] }),
        departure("KL1871", { gate: "D5", in: "3h" }),
      ],
      rules: RULES,
    });
    const anna = email("sub:anna-x7q2lm").about("KL1870").to("anna@example.com");
    const app = webhook("sub:app-kl1870").about("KL1870");
    tl.at("0s").do("subscribe Anna (DL9870, email) and the app (KL1870, webhook)", async (w) => {
      const date = w.record("KL1870").scheduleDate as string;
      const id = await subscriptions(
        w,
        "add",
        "--id",
        "anna-x7q2lm",
        "--flight",
        "DL9870",
        "--date",
        date,
        "--email",
        "anna@example.com",
        "--label",
        "booking=X7Q2LM",
      );
      assert(id.trim()).toBe("anna-x7q2lm");
      await subscriptions(
        w,
        "add",
        "--id",
        "app-kl1870",
        "--flight",
        "KL1870",
        "--date",
        date,
        "--webhook",
        w.webhook.url,
        "--secret",
        WEBHOOK_SECRET,
      );
      const listed = await subscriptions(w, "list", "--flight", "KL1870");
      assert(listed).toContain("app-kl1870");
      assert(listed).not.toContain("anna-x7q2lm"); // filed under her number, DL9870
    });
    tl.at("3s")
      .gate("KL1870", "D7")
      .expect(anna.saying("DL9870").saying("gate D4 → D7"))
      .expect(app.change({ kind: "gate", old: "D4", new: "D7" }));
    // Not one of the essentials: a delay under 15 minutes.
    tl.at("6s").delay("KL1870", "10m");
    // The rule files' rules are untouched.
    tl.at("7s").gate("KL1871", "E2").expect(webhook("ops-gates").about("KL1871"));
    tl.at("9s").do("unsubscribe Anna", async (w) => {
      assert(await subscriptions(w, "remove", "anna-x7q2lm")).toContain("removed anna-x7q2lm");
    });
    tl.at("11s")
      .gate("KL1870", "D8")
      .expect(app.change({ kind: "gate", old: "D7", new: "D8" }));
    const result = await tl.run();
    const mails = result.deliveries.filter((d) => d.channel === "email");
    assert(mails).toHaveLength(1);
    assert(mails[0]?.text).toContain("DL9870 (KL1870) to ");
  }, 90_000);
});
