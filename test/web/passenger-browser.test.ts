/**
 * A passenger's whole way through the pages, in a real headless Chromium (Debian's,
 * driven by playwright-core) against the real daemon (`flightwatch run` as a child
 * process, serving the pages on its HTTP port with PUBLIC_URL), the simulator, a real
 * Redis and a local SMTP server: Anna subscribes to her flight by the codeshare number on
 * her ticket (after a form with problems), a gate change while she has not confirmed
 * reaches nobody, she confirms from the email's link, sees the flight's status, gets the
 * alert of the next gate change — with List-Unsubscribe pointing at flightwatch — and
 * unsubscribes from it; a later change sends nothing. Every page is photographed at a
 * desktop and a phone size — into a temporary directory, or with
 * `SCREENSHOTS_DIR=docs/images` into the screenshots of docs/subscriptions.md (a test
 * run leaves the tracked images alone: some show the time).
 */
import { mkdir } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect as assert, describe, it } from "vitest";
import { departure } from "../acceptance/cast.js";
import { type Delivery, email, Matcher } from "../acceptance/deliveries.js";
import { timeline } from "../acceptance/timeline.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const IMAGES = pathToFileURL(
  `${resolve(process.env.SCREENSHOTS_DIR ?? join(tmpdir(), "flightwatch-screenshots"))}/`,
);
const DESKTOP = { width: 1100, height: 760 };
const PHONE = { width: 390, height: 760 };

/** What the test reads of the page's window. */
interface PageWindow {
  getComputedStyle(element: unknown): { outlineStyle: string };
}

/** A free loopback port, for the daemon's HTTP_PORT (PUBLIC_URL must name it beforehand). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * The email of one subscription, whose id is known only once it was made in the
 * browser: like `base` otherwise.
 */
class SubscriptionMail extends Matcher {
  constructor(
    private readonly made: { id?: string },
    private readonly base: Matcher,
  ) {
    super(base.channel, base.ruleId, base.flight, base.changePatterns, base.texts, base.recipient);
  }

  override matches(d: Delivery): boolean {
    return (
      this.made.id !== undefined &&
      d.ruleId === `sub:${this.made.id}` &&
      this.base.matches({ ...d, ruleId: this.base.ruleId })
    );
  }

  override toString(): string {
    return this.base.toString().replace(this.base.ruleId, `sub:${this.made.id ?? "?"}`);
  }
}

/** The page photographed at both sizes, whole: `docs/images/passenger-<name>-{desktop,phone}.png`. */
async function photograph(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ["desktop", DESKTOP],
    ["phone", PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({
      path: new URL(`passenger-${name}-${size}.png`, IMAGES).pathname,
      fullPage: true,
    });
  }
  await page.setViewportSize(DESKTOP);
}

/** A mail's decoded text: quoted-printable soft breaks joined, `=XX` decoded. */
function textOf(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/(?:=[0-9A-F]{2})+/g, (run) =>
    Buffer.from(
      run
        .split("=")
        .slice(1)
        .map((h) => Number.parseInt(h, 16)),
    ).toString("utf8"),
  );
}

describe("the passenger pages in a real browser", () => {
  it("subscribe → confirm → alert → unsubscribe → silence, against the real daemon", async () => {
    await mkdir(IMAGES, { recursive: true });
    const port = await freePort();
    const site = `http://127.0.0.1:${port}`;
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM });
    const page = await (
      await browser.newContext({
        viewport: DESKTOP,
        locale: "en-GB",
        timezoneId: "Europe/Amsterdam",
      })
    ).newPage();
    const made: { id?: string } = {};
    try {
      const tl = timeline({
        name: "passenger-browser",
        cast: [departure("KL1870", { gate: "D4", in: "3h", codeshares: ["DL9870"] })],
        rules: "rules: []\n",
        // One confirmation email a day per mailbox: the daemon takes the variable.
        env: { HTTP_PORT: String(port), PUBLIC_URL: site, SUBSCRIBE_LIMIT_EMAIL: "1/1d" },
      });

      tl.at("0s")
        .do("Anna opens the form, sends it empty, then fills it in", async (w) => {
          await page.goto(`${site}/passenger/subscribe?lang=nl`);
          assert(await page.getAttribute("html", "lang")).toBe("nl");
          await photograph(page, "subscribe-nl");
          await page.getByRole("link", { name: "English" }).click();
          assert(await page.getAttribute("html", "lang")).toBe("en");
          await photograph(page, "subscribe");
          // The focus can be seen.
          await page.getByLabel("Flight number").focus();
          const outline = await page.getByLabel("Flight number").evaluate(
            // Runs in the page (this project's types have no DOM).
            (el) => (globalThis as unknown as PageWindow).getComputedStyle(el).outlineStyle,
          );
          assert(outline).toBe("solid");
          await page.getByRole("button", { name: "Follow this flight" }).click();
          const problems = page.getByRole("alert");
          assert(await problems.textContent()).toContain("Enter the flight number");
          assert(await problems.textContent()).toContain("Enter your email address");
          await photograph(page, "subscribe-problems");

          await page.getByLabel("Flight number").fill("DL9870");
          await page
            .getByLabel("Date of the flight")
            .fill(w.record("KL1870").scheduleDate as string);
          await page.getByLabel("Email address").fill("anna@example.com");
          await page.getByLabel("Language of the emails").selectOption("en");
          await page.getByRole("button", { name: "Follow this flight" }).click();
          await page.getByRole("heading", { name: "Check your email" }).waitFor();
          await photograph(page, "check-email");
          made.id = (await w.redis.redis.zrange(w.keys.webPending, 0, -1))[0];
          assert(made.id).toBeDefined();
        })
        .expect(email("?").to("anna@example.com").saying("Confirm: updates about DL9870"), {
          within: "30s",
        })
        // Before she confirms: nothing reaches her.
        .gate("KL1870", "D5");

      tl.at("5s").do("Anna confirms from the email's link, then looks at her flight", async (w) => {
        const [confirmation] = await w.smtp.waitForMessages(1, 10_000);
        assert(confirmation?.headers["x-flightwatch-rule"]).toBeUndefined();
        const link = new RegExp(`${site}/passenger/confirm\\?t=[\\w.-]+`).exec(
          textOf(confirmation?.raw ?? ""),
        )?.[0];
        assert(link).toBeDefined();
        await page.goto(link as string);
        await page.getByRole("heading", { name: "Confirm your subscription" }).waitFor();
        await photograph(page, "confirm");
        await page.getByRole("button", { name: "Yes, send me updates" }).click();
        await page.getByRole("heading", { name: "You are subscribed" }).waitFor();
        await photograph(page, "confirmed");
        await page.getByRole("link", { name: "See the flight's status" }).click();
        await page.getByRole("heading", { name: "Flight DL9870" }).waitFor();
        const facts = await page.locator("dl.facts").textContent();
        // The change she was not told about is what the page shows.
        assert(facts).toContain("D5");
        await photograph(page, "flight");
      });

      const anna = new SubscriptionMail(
        made,
        email("sub:anna").about("KL1870").to("anna@example.com").saying("gate D5 → D7"),
      );
      tl.at("10s").gate("KL1870", "D7").expect(anna);

      tl.at("16s").do("Anna unsubscribes from the alert's link", async (w) => {
        const alert = w.smtp.messages.find((m) =>
          m.headers["x-flightwatch-rule"]?.startsWith("sub:"),
        );
        assert(alert).toBeDefined();
        const header = alert?.headers["list-unsubscribe"] ?? "";
        assert(alert?.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
        assert(header).toMatch(new RegExp(`^<${site}/passenger/unsubscribe\\?t=[\\w.-]+>$`));
        await page.goto(header.slice(1, -1));
        await page.getByRole("heading", { name: "Unsubscribe" }).waitFor();
        await photograph(page, "unsubscribe");
        await page.getByRole("button", { name: "Unsubscribe" }).click();
        await page.getByRole("heading", { name: "You are unsubscribed" }).waitFor();
        await photograph(page, "unsubscribed");
      });

      // After she unsubscribed: nothing (the timeline fails on any delivery it did not expect).
      tl.at("20s").gate("KL1870", "D8");

      tl.at("22s").do("Anna's address gets no second confirmation today", async (w) => {
        await page.goto(`${site}/passenger/subscribe`);
        await page.getByLabel("Flight number").fill("KL1870");
        await page.getByLabel("Date of the flight").fill(w.record("KL1870").scheduleDate as string);
        await page.getByLabel("Email address").fill("Anna@Example.com");
        const [answer] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith("/passenger/subscribe")),
          page.getByRole("button", { name: "Follow this flight" }).click(),
        ]);
        assert(answer.status()).toBe(429);
        assert(await page.getByRole("heading").first().textContent()).toMatch(/too many/i);
      });

      const result = await tl.run();
      const mails = result.deliveries.filter((d) => d.to.includes("anna@example.com"));
      assert(mails.map((d) => d.ruleId)).toEqual(["?", `sub:${made.id}`]);
      assert(mails[1]?.text).toContain("DL9870 (KL1870) to WAW");
    } finally {
      await browser.close();
    }
  }, 180_000);
});
