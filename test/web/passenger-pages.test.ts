/**
 * The passenger pages behind the real ops server on a loopback port, with a real Redis
 * and a real SMTP server: the form's problems named by field, double opt-in (one
 * confirmation email; a GET of its link confirms nothing, the button's POST does; a day
 * later the link is refused and the sweep deletes the subscription), signed links
 * refused when changed or used for another page, RFC 8058 one-click unsubscribe (200 on
 * `List-Unsubscribe=One-Click`, URL-encoded or multipart), the rate limits' 429 pages,
 * the flight's status from its snapshot, and the emails' List-Unsubscribe header.
 */
import { request } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emailMessage } from "../../src/deliver/email-message.js";
import type { EmailSettings } from "../../src/deliver/email-settings.js";
import { notificationOf } from "../../src/deliver/notification.js";
import type { FlightSnapshot } from "../../src/diff/flight-snapshot.js";
import { type OpsServer, startOpsServer } from "../../src/ops/ops-server.js";
import type { EmailChannelSpec } from "../../src/rules/rule.js";
import { type RedisKeys, redisKeys } from "../../src/store/redis-keys.js";
import { type Subscription, subscriptionRule } from "../../src/subscriptions/subscription.js";
import { SubscriptionStore } from "../../src/subscriptions/subscription-store.js";
import { fromLocalDateTime, toLocalDate } from "../../src/time/local-time.js";
import { signLink, verifyLink } from "../../src/web/link-token.js";
import {
  type PassengerWeb,
  type PassengerWebOptions,
  startPassengerWeb,
} from "../../src/web/passenger-web.js";
import { alertOf } from "../support/alert-builder.js";
import { type TestRedis, testRedis } from "../support/redis.js";
import { type SmtpReceiver, startSmtpReceiver } from "../support/smtp-receiver.js";

const ZONE = "Europe/Amsterdam";
const PUBLIC_URL = "https://flights.example.test";
const SECRET = "the-test-deployment-link-secret";
const DAY = 86_400_000;
// Redis expires subscriptions by its own clock: the flight is tomorrow.
const DATE = toLocalDate(Date.now() + DAY, ZONE);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe("the passenger pages", () => {
  let t: TestRedis;
  let keys: RedisKeys;
  let smtp: SmtpReceiver;
  let store: SubscriptionStore;
  let web: PassengerWeb | undefined;
  let server: OpsServer | undefined;
  const clock = { now: Date.now() };

  beforeEach(async () => {
    t = await testRedis("web-pages");
    keys = redisKeys(t.prefix);
    smtp = await startSmtpReceiver();
    store = new SubscriptionStore(t.redis, keys, { zone: ZONE });
    clock.now = Date.now();
  });

  afterEach(async () => {
    await server?.close();
    web?.close();
    server = undefined;
    web = undefined;
    await smtp.close();
    await t.cleanup();
  });

  const email: EmailSettings = {
    host: "127.0.0.1",
    port: 0,
    secure: false,
    allowPlaintextAuth: false,
    from: "flightwatch <flightwatch@airport.example>",
    fromAddress: "flightwatch@airport.example",
  };

  /** Starts the pages behind an ops server (with SMTP unless `withEmail` is false). */
  async function start(extra: Partial<PassengerWebOptions> = {}, withEmail = true): Promise<void> {
    web = await startPassengerWeb({
      redis: t.redis,
      keys,
      context: { zone: ZONE },
      publicUrl: PUBLIC_URL,
      secret: SECRET,
      ...(withEmail ? { email: { ...email, port: smtp.port } } : {}),
      now: () => clock.now,
      ...extra,
    });
    server = await startOpsServer({
      port: 0,
      readiness: async () => ({ ready: true, checks: {} }),
      pages: web.pages,
    });
  }

  async function call(
    path: string,
    options: {
      method?: "GET" | "POST" | "PUT";
      body?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<Answer> {
    const res = await request(`${server?.url}${path}`, {
      method: options.method ?? "GET",
      ...(options.body !== undefined ? { body: options.body } : {}),
      headers: options.headers ?? {},
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  }

  const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
    method: "POST" as const,
    body: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  });
  const subscribe = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    call("/passenger/subscribe", form(fields, headers));
  const anna = {
    flight: "kl 1001",
    date: DATE,
    email: "anna@example.com",
    language: "en",
    lang: "en",
  };

  /** The path and query of an absolute link under PUBLIC_URL. */
  const pathOf = (link: string) => {
    expect(link.startsWith(`${PUBLIC_URL}/passenger/`)).toBe(true);
    return link.slice(PUBLIC_URL.length);
  };
  /** The confirm link of the last confirmation email. */
  const confirmLink = () => {
    const raw =
      smtp.messages
        .at(-1)
        ?.raw.replace(/=\r?\n/g, "")
        .replace(/=3D/g, "=") ?? "";
    const link = new RegExp(`${PUBLIC_URL}/passenger/confirm\\?t=[A-Za-z0-9_.-]+`).exec(raw)?.[0];
    expect(link).toBeDefined();
    return pathOf(link as string);
  };
  const all = async () => (await store.list()).subscriptions;
  const active = (id: string, parts: Partial<Subscription> = {}): Subscription => ({
    id,
    flight: "KL1001",
    date: DATE,
    preset: "essentials",
    channel: { type: "email", to: `${id}@example.com` },
    labels: {},
    status: "active",
    createdAt: clock.now,
    ...parts,
  });

  it("serve the subscribe form in English or Dutch, beside the ops routes", async () => {
    await start();
    const en = await call("/passenger/subscribe");
    expect(en.status).toBe(200);
    expect(en.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(en.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(en.headers["referrer-policy"]).toBe("same-origin");
    expect(en.body).toContain('<html lang="en">');
    for (const field of ["flight", "date", "email", "language"]) {
      expect(en.body).toContain(`<label for="${field}">`);
      expect(en.body).toContain(`id="${field}" name="${field}"`);
    }
    const nl = await call("/passenger/subscribe?lang=nl");
    expect(nl.body).toContain('<html lang="nl">');
    expect(nl.body).toContain("Vluchtnummer");
    const accepted = await call("/passenger/subscribe", {
      headers: { "accept-language": "de-DE, nl;q=0.8, en;q=0.5" },
    });
    expect(accepted.body).toContain('<html lang="nl">');
    expect((await call("/passenger/")).headers.location).toBe("subscribe");
    expect((await call("/passenger")).headers.location).toBe("passenger/subscribe");
    const css = await call("/passenger/style.css");
    expect(css.status).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect((await call("/passenger/nothing")).status).toBe(404);
    expect((await call("/passenger/subscribe", { method: "PUT" })).status).toBe(405);
    // Not theirs: the ops server answers as before.
    expect((await call("/healthz")).status).toBe(200);
    expect((await call("/nothing")).body).toContain("no route /nothing");
  });

  it("refuse a form with problems, naming each field, and store and send nothing", async () => {
    await start();
    const empty = await subscribe({ lang: "en" });
    expect(empty.status).toBe(422);
    expect(empty.body).toContain("There is a problem");
    for (const [field, text] of [
      ["flight", "Enter the flight number"],
      ["date", "Enter the date of the flight"],
      ["email", "Enter your email address"],
    ]) {
      expect(empty.body).toContain(`<li><a href="#${field}">${text}</a></li>`);
      expect(empty.body).toContain(`<span class="error-text" id="${field}-error">${text}</span>`);
      expect(empty.body).toMatch(
        new RegExp(
          `id="${field}"[^>]*aria-describedby="${field}-hint ${field}-error" aria-invalid="true"`,
        ),
      );
    }
    const some = await subscribe({ ...anna, flight: "KLX", email: "anna@" });
    expect(some.status).toBe(422);
    expect(some.body).toContain('<a href="#flight">Enter a flight number such as KL1001');
    expect(some.body).toContain('<a href="#email">Enter an email address such as anna@example.com');
    expect(some.body).not.toContain('href="#date"');
    // What was typed stays.
    expect(some.body).toContain('value="KLX"');
    const far = await subscribe({ ...anna, date: "2099-01-01", lang: "nl" });
    expect(far.status).toBe(422);
    expect(far.body).toContain('<a href="#date">Vul een datum in van');
    const language = await subscribe({ ...anna, language: "de" });
    expect(language.body).toContain('<a href="#language">Choose English or Nederlands');
    expect(smtp.messages).toHaveLength(0);
    expect(await all()).toEqual([]);
  });

  it("subscribe with double opt-in: one email, and nothing active until the button is pressed", async () => {
    await start();
    const sent = await subscribe({ ...anna, language: "nl" });
    expect(sent.status).toBe(200);
    expect(sent.body).toContain("Check your email");
    expect(sent.body).toContain("anna@example.com");
    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0];
    expect(mail?.to).toEqual(["anna@example.com"]);
    // The email speaks the language chosen for the notifications.
    expect(mail?.headers.subject).toMatch(/^Bevestig: berichten over KL1001 op /);
    expect(mail?.headers["auto-submitted"]).toBe("auto-generated");
    const [pending] = await all();
    expect(pending).toMatchObject({
      flight: "KL1001",
      date: DATE,
      preset: "essentials",
      language: "nl",
      status: "pending",
      channel: { type: "email", to: "anna@example.com" },
    });
    const id = pending?.id as string;
    expect(mail?.headers["x-flightwatch-confirmation"]).toBe(id);
    expect(await t.redis.zscore(keys.webPending, id)).toBe(String(clock.now + DAY));

    // A link scanner fetching the link confirms nothing.
    const link = confirmLink();
    for (let i = 0; i < 2; i++) {
      const page = await call(link);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<html lang="nl">');
      expect(page.body).toContain('<form method="post" action="confirm?t=');
      expect((await store.get(id))?.status).toBe("pending");
    }
    const confirmed = await call(link, form({}));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain("Je bent aangemeld");
    expect((await store.get(id))?.status).toBe("active");
    expect(await t.redis.zscore(keys.webPending, id)).toBeNull();
    // Its page links to the flight and to unsubscribing, each with a token of its own.
    const tokens = [...confirmed.body.matchAll(/href="(flight|unsubscribe)\?t=([^&"]+)/g)];
    expect(tokens.map((m) => m[1])).toEqual(["flight", "unsubscribe"]);
    expect(verifyLink(SECRET, "status", tokens[0]?.[2])?.id).toBe(id);
    expect(verifyLink(SECRET, "unsubscribe", tokens[1]?.[2])?.id).toBe(id);
    // Confirming again changes nothing, and sends nothing more.
    expect((await call(link, form({}))).status).toBe(200);
    expect(smtp.messages).toHaveLength(1);
  });

  it("make no second subscription for a mailbox that asks again, and say the same either way", async () => {
    await start({ tuning: { limits: { email: { count: 10, windowMs: DAY } } } });
    const first = await subscribe(anna);
    // Asked again (in other case) before confirming: the same subscription, its link again.
    clock.now += 3 * 3_600_000;
    const again = await subscribe({ ...anna, flight: "KL1001", email: "Anna@Example.com" });
    expect(again.status).toBe(200);
    expect(again.body).toBe(first.body.replace("anna@example.com", "Anna@Example.com"));
    expect(await all()).toHaveLength(1);
    const [pending] = await all();
    expect(smtp.messages.map((m) => m.headers["x-flightwatch-confirmation"])).toEqual([
      pending?.id,
      pending?.id,
    ]);
    // Two messages, two Message-IDs (a mailbox may drop a repeated one).
    expect(new Set(smtp.messages.map((m) => m.headers["message-id"])).size).toBe(2);
    expect(smtp.messages[1]?.to).toEqual(["anna@example.com"]);
    // It says how long its link has left: 21 of the day's hours.
    expect(smtp.messages[1]?.raw).toContain("21 hours");
    const link = confirmLink();
    await call(link, form({}));
    expect((await store.get(pending?.id as string))?.status).toBe("active");

    // Asked again once active: still one subscription, and an email saying she has it.
    const third = await subscribe(anna);
    expect(third.status).toBe(200);
    expect(third.body).toBe(first.body);
    expect(await all()).toHaveLength(1);
    const already = smtp.messages.at(-1);
    expect(already?.headers.subject).toMatch(/^You already follow KL1001 on /);
    const text = already?.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=") ?? "";
    const status = new RegExp(`${PUBLIC_URL}/passenger/flight\\?t=[A-Za-z0-9_.-]+`).exec(text);
    expect(status).not.toBeNull();
    expect((await call(pathOf(status?.[0] as string))).body).toContain(
      "Updates go to anna@example.com",
    );

    // Another address — a +tag too, though it reaches her mailbox — is another subscription:
    // the form answers as it would for anyone, and mails the address typed.
    await subscribe({ ...anna, email: "ben@example.com" });
    await subscribe({ ...anna, email: "anna+trip@example.com" });
    expect(await all()).toHaveLength(3);
    expect(smtp.messages.at(-1)?.to).toEqual(["anna+trip@example.com"]);
    // Unsubscribed, she may subscribe anew.
    await store.setStatus(pending?.id as string, "unsubscribed");
    await subscribe(anna);
    expect((await all()).filter((x) => x.status === "pending")).toHaveLength(3);
  });

  it("refuse links that were changed or made for another page", async () => {
    await start();
    await store.add([active("ben", { status: "pending" })], clock.now);
    const confirm = signLink(SECRET, "confirm", active("ben"));
    const unsubscribe = signLink(SECRET, "unsubscribe", active("ben"));
    for (const path of [
      `/passenger/unsubscribe?t=${confirm}`,
      `/passenger/confirm?t=${unsubscribe}`,
      `/passenger/flight?t=${unsubscribe}`,
      `/passenger/confirm?t=${confirm.replace("ben.", "bem.")}`,
      `/passenger/confirm?t=${confirm.slice(0, -2)}`,
      "/passenger/confirm",
    ]) {
      for (const method of ["GET", "POST"] as const) {
        const answer = await call(path, { method, body: "List-Unsubscribe=One-Click" });
        if (method === "POST" && path.includes("/flight")) continue;
        expect(answer.status, `${method} ${path}`).toBe(404);
        expect(answer.body).toContain("This link does not work");
      }
    }
    expect((await store.get("ben"))?.status).toBe("pending");
  });

  it("open nothing of a subscription made later under the same id", async () => {
    await start();
    const first = active("dan");
    await store.add([first], clock.now);
    const oldLink = `/passenger/unsubscribe?t=${signLink(SECRET, "unsubscribe", first)}`;
    const oldStatus = `/passenger/flight?t=${signLink(SECRET, "status", first)}`;
    expect((await call(oldStatus)).body).toContain("dan@example.com");
    await store.remove("dan");
    const second = active("dan", { createdAt: first.createdAt + 60_000, labels: { n: "2" } });
    await store.add([second], second.createdAt);
    // The old links (a mail of the first) reach nothing of the second.
    const status = await call(oldStatus);
    expect(status.body).not.toContain("dan@example.com");
    const oneClick = await call(oldLink, form({ "List-Unsubscribe": "One-Click" }));
    expect(oneClick.status).toBe(200);
    expect(oneClick.body).toContain("nothing to unsubscribe");
    expect((await store.get("dan"))?.status).toBe("active");
    // Its own link does.
    const own = `/passenger/unsubscribe?t=${signLink(SECRET, "unsubscribe", second)}`;
    await call(own, form({ "List-Unsubscribe": "One-Click" }));
    expect((await store.get("dan"))?.status).toBe("unsubscribed");
  });

  it("unsubscribe in one click (RFC 8058): a POST of List-Unsubscribe=One-Click answers 200", async () => {
    await start();
    await store.add([active("anna"), active("ben"), active("carl")], clock.now);
    const url = web?.unsubscribeUrl(active("anna")) as string;
    // Opening the link only asks; its button sends what a mail client sends.
    const page = await call(pathOf(url));
    expect(page.status).toBe(200);
    expect(page.body).toContain('<input type="hidden" name="List-Unsubscribe" value="One-Click">');
    expect((await store.get("anna"))?.status).toBe("active");

    const oneClick = await call(pathOf(url), form({ "List-Unsubscribe": "One-Click" }));
    expect(oneClick.status).toBe(200);
    expect(oneClick.body).toContain("You are unsubscribed");
    expect((await store.get("anna"))?.status).toBe("unsubscribed");
    expect((await call(pathOf(url), form({ "List-Unsubscribe": "One-Click" }))).status).toBe(200);

    // multipart/form-data, which RFC 8058 allows as well.
    const boundary = "----fwtest";
    const multipart = await call(pathOf(web?.unsubscribeUrl(active("ben")) as string), {
      method: "POST",
      body: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    expect(multipart.status).toBe(200);
    expect((await store.get("ben"))?.status).toBe("unsubscribed");
    expect((await store.get("carl"))?.status).toBe("active");

    // A subscription gone meanwhile: still 200, there is nothing left to send.
    const gone = await call(
      pathOf(web?.unsubscribeUrl(active("dora")) as string),
      form({ "List-Unsubscribe": "One-Click" }),
    );
    expect(gone.status).toBe(200);
    expect(gone.body).toContain("nothing to unsubscribe");
  });

  it("give subscriptions' emails List-Unsubscribe and List-Unsubscribe-Post pointing at the pages", async () => {
    await start();
    const s = active("anna");
    const rule = subscriptionRule(s, {
      zone: ZONE,
      unsubscribeUrl: (sub) => web?.unsubscribeUrl(sub) as string,
    });
    const channel = rule.channels[0] as EmailChannelSpec;
    const alert = alertOf({ ruleId: rule.id });
    const message = emailMessage(
      notificationOf(alert, channel),
      channel,
      rule,
      ZONE,
      email.from,
      "anna@example.com",
    );
    expect(message.headers["List-Unsubscribe"]).toBe(`<${web?.unsubscribeUrl(active("anna"))}>`);
    expect(message.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    // Without PUBLIC_URL, no header.
    const plain = subscriptionRule(s, { zone: ZONE }).channels[0] as EmailChannelSpec;
    expect(plain.unsubscribeUrl).toBeUndefined();
  });

  it("rate-limit the form per client and per email address, with a 429 page", async () => {
    await start({
      tuning: {
        limits: { client: { count: 3, windowMs: 3_600_000 }, email: { count: 1, windowMs: DAY } },
      },
    });
    expect((await subscribe(anna)).status).toBe(200);
    const again = await subscribe(anna);
    expect(again.status).toBe(429);
    expect(again.body).toContain("Too many requests");
    expect(again.body).toContain("already sent several emails to this address");
    expect(Number(again.headers["retry-after"])).toBeGreaterThan(3600);
    expect((await subscribe({ ...anna, email: "ben@example.com" })).status).toBe(200);
    const client = await subscribe({ ...anna, email: "carl@example.com", lang: "nl" });
    expect(client.status).toBe(429);
    expect(client.body).toContain("Dit formulier is te vaak gebruikt");
    expect(Number(client.headers["retry-after"])).toBeLessThanOrEqual(3600);
    expect(smtp.messages.map((m) => m.to[0])).toEqual(["anna@example.com", "ben@example.com"]);
  });

  it("count one mailbox however it is spelled, one IPv6 host by its /64, and refuse forms posted from other sites", async () => {
    await start({
      trustProxy: true,
      tuning: {
        limits: { client: { count: 2, windowMs: 3_600_000 }, email: { count: 1, windowMs: DAY } },
      },
    });
    const via = (chain: string) => ({ "x-forwarded-for": chain });
    expect((await subscribe({ ...anna, email: "anna@gmail.com" }, via("192.0.2.1"))).status).toBe(
      200,
    );
    // The same mailbox: a +tag, dots, another spelling of the domain — no second email.
    for (const [email, from] of [
      ["Anna+1@gmail.com", "192.0.2.2"],
      ["a.n.n.a@googlemail.com", "192.0.2.3"],
    ] as const) {
      expect((await subscribe({ ...anna, email }, via(from))).status, email).toBe(429);
    }
    // Addresses of one IPv6 /64 are one client.
    expect(
      (await subscribe({ ...anna, email: "ben@example.com" }, via("2001:db8:1:2::10"))).status,
    ).toBe(200);
    expect(
      (await subscribe({ ...anna, email: "carl@example.com" }, via("2001:db8:1:2::11"))).status,
    ).toBe(200);
    expect(
      (await subscribe({ ...anna, email: "dana@example.com" }, via("2001:db8:1:2:ffff::1"))).status,
    ).toBe(429);
    expect(
      (await subscribe({ ...anna, email: "dana@example.com" }, via("2001:db8:1:3::1"))).status,
    ).toBe(200);
    // A browser posting the form from another site's page: refused, nothing stored or sent.
    const before = smtp.messages.length;
    const stored = (await all()).length;
    const hostile = await subscribe(
      { ...anna, email: "erin@example.com" },
      { ...via("192.0.2.9"), origin: "https://evil.example" },
    );
    expect(hostile.status).toBe(403);
    // A hostile page that hides its origin is refused too.
    const hidden = await subscribe(
      { ...anna, email: "erin@example.com" },
      { ...via("192.0.2.9"), origin: "null" },
    );
    expect(hidden.status).toBe(403);
    expect(smtp.messages.length).toBe(before);
    expect((await all()).length).toBe(stored);
    // From its own pages (and from clients that send no Origin) it is taken.
    const own = await subscribe(
      { ...anna, email: "erin@example.com" },
      { ...via("192.0.2.9"), origin: new URL(PUBLIC_URL).origin },
    );
    expect(own.status).toBe(200);
  });

  it("behind a trusted proxy, count clients by the address the proxy adds to X-Forwarded-For", async () => {
    await start({
      trustProxy: true,
      tuning: { limits: { client: { count: 1, windowMs: 60_000 } } },
    });
    const from = (chain: string) => subscribe({ lang: "en" }, { "x-forwarded-for": chain });
    expect((await from("203.0.113.5")).status).toBe(422);
    // What the client itself wrote before the proxy's entry does not make it another client.
    expect((await from("198.51.100.1, 203.0.113.5")).status).toBe(429);
    expect((await from("203.0.113.6")).status).toBe(422);
  });

  it("refuse a confirm link after a day, and sweep the unconfirmed subscription away", async () => {
    await start();
    expect((await subscribe(anna)).status).toBe(200);
    const link = confirmLink();
    const [pending] = await all();
    clock.now += DAY;
    const late = await call(link);
    expect(late.status).toBe(410);
    expect(late.body).toContain("This link has expired");
    expect((await call(link, form({}))).status).toBe(410);
    expect((await store.get(pending?.id as string))?.status).toBe("pending");
    // The sweep leaves a few minutes' grace after the deadline.
    expect(await web?.pages.sweep()).toBe(0);
    clock.now += 10 * 60_000;
    expect(await web?.pages.sweep()).toBe(1);
    expect(await store.get(pending?.id as string)).toBeUndefined();
    expect(await t.redis.zcard(keys.webPending)).toBe(0);
  });

  it("keep nothing of a subscription whose confirmation could not be sent", async () => {
    await start();
    smtp.script({ rcpt: () => ({ code: 550, message: "5.1.1 no such mailbox" }) });
    const refused = await subscribe(anna);
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('<a href="#email">The mail server refused this address');
    smtp.script({ rcpt: () => ({ code: 451, message: "4.3.0 try later" }) });
    const later = await subscribe({ ...anna, email: "ben@example.com" });
    expect(later.status).toBe(503);
    expect(later.body).toContain("could not send the email");
    expect(await all()).toEqual([]);
  });

  it("without SMTP, say that no subscription can be taken (503)", async () => {
    await start({}, false);
    const answer = await subscribe(anna);
    expect(answer.status).toBe(503);
    expect(answer.body).toContain("cannot send email");
    expect(await all()).toEqual([]);
  });

  it("show the flight as flightwatch last saw it, found by the codeshare number subscribed to", async () => {
    await start();
    const scheduled = fromLocalDateTime(`${DATE}T10:25`, ZONE) as number;
    const snapshot: FlightSnapshot = {
      key: `D:${DATE}:KL1001`,
      id: "1",
      mainFlight: "KL1001",
      flightNames: ["KL1001", "DL9341"],
      direction: "D",
      scheduleDate: DATE,
      scheduled,
      version: scheduled - 30 * 60_000,
      fields: {
        gate: "D7",
        pier: "D",
        states: ["BRD"],
        route: ["WAW"],
        times: { publicEstimatedOffBlockTime: scheduled + 25 * 60_000 },
      },
    };
    await t.redis.set(keys.snapshot(snapshot.key), JSON.stringify(snapshot));
    await t.redis.zadd(keys.snapshotIndex, scheduled, snapshot.key);
    await store.add(
      [active("anna", { flight: "DL9341" }), active("ben", { flight: "KL1002" })],
      clock.now,
    );
    const page = await call(`/passenger/flight?t=${signLink(SECRET, "status", active("anna"))}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("DL9341 (KL1001) to WAW, departs");
    expect(page.body).toContain("<dt>Status</dt><dd>Boarding</dd>");
    expect(page.body).toContain("<dt>Gate</dt><dd>D7 (pier D)</dd>");
    expect(page.body).toContain("<dt>Estimated departure</dt><dd>10:50 (25 min late)</dd>");
    expect(page.body).toContain("Updates go to anna@example.com.");
    const nl = await call(
      `/passenger/flight?t=${signLink(SECRET, "status", active("anna"))}&lang=nl`,
    );
    expect(nl.body).toContain("<dt>Status</dt><dd>Instappen</dd>");
    const unseen = await call(`/passenger/flight?t=${signLink(SECRET, "status", active("ben"))}`);
    expect(unseen.status).toBe(200);
    expect(unseen.body).toContain("flightwatch has no news of this flight yet");
  });
});
