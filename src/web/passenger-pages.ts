/**
 * The passenger pages under /passenger/ on the HTTP port: subscribe (a flight number,
 * a date, an email address, a language: a `pending` subscription to the essentials and
 * one confirmation email), confirm (a page whose button POSTs: a link scanner that
 * fetches the link confirms nothing), the flight's status as flightwatch last saw it,
 * and unsubscribe (a page with a button, and RFC 8058 one-click: a POST to the link of
 * `List-Unsubscribe` unsubscribes and answers 200). Links carry signed tokens
 * (link-token.ts), no login; the subscribe form is rate-limited per client and per email
 * address. Server-rendered HTML in English or Dutch, usable without script.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { escapeHtml } from "../deliver/email-message.js";
import type { Language } from "../render/language.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import {
  checkSubscription,
  newSubscriptionId,
  type Subscription,
  type SubscriptionContext,
} from "../subscriptions/subscription.js";
import type { SubscriptionStore } from "../subscriptions/subscription-store.js";
import { type ConfirmationMailer, confirmationMessage } from "./confirmation-email.js";
import { findSnapshot, flightFacts } from "./flight-status.js";
import { checkForm, formDates, formErrorsOf } from "./form-check.js";
import { clientAddress, readForm } from "./http-form.js";
import {
  type LinkPurpose,
  PASSENGER_PATH,
  type PassengerLinks,
  signLink,
  verifyLink,
} from "./link-token.js";
import { type Answer, message, notAllowed, redirect, send, tooMany } from "./page-answer.js";
import {
  buttonForm,
  FORM_FIELDS,
  type FormErrors,
  type FormValues,
  links,
  pageHtml,
  panel,
  paragraphs,
  subscribeFormHtml,
} from "./page-html.js";
import { PAGE_STYLE } from "./page-style.js";
import { type About, dateInWords, type PageWords, pageLanguage, wordsOf } from "./page-words.js";
import { PendingSubscriptions } from "./pending-subscriptions.js";
import { clientNetwork, type Limit, type LimitKind, mailboxOf, RateLimiter } from "./rate-limit.js";

/** What the pages are built from. */
export interface PassengerPagesOptions {
  redis: RedisConnection;
  keys: RedisKeys;
  store: SubscriptionStore;
  /** The airport's zone (dates, times) and the outbound policy, as subscriptions are checked with. */
  context: SubscriptionContext;
  /** The signing key of the links (link-secret.ts). */
  secret: string;
  links: PassengerLinks;
  /** Sends confirmations; absent (no SMTP_URL), the form says it cannot take subscriptions. */
  mailer?: ConfirmationMailer;
  /** EMAIL_FROM. */
  from?: string;
  /** The airport clock. */
  now: () => number;
  /** TRUST_PROXY. */
  trustProxy?: boolean;
  /**
   * The origin of PUBLIC_URL: a form posted from a page of another origin (a hostile
   * site making its visitors' browsers subscribe strangers) is refused.
   */
  origin?: string;
  limits?: Partial<Record<LimitKind, Limit>>;
  /** How long a confirm link works (default a day). */
  pendingMs?: number;
  /** Hears what went wrong (a request that failed, a confirmation not sent). */
  onError?: (err: unknown, what: string) => void;
}

/** The pages, for a server to hand its requests to. */
export interface PassengerPages {
  /** Answers a request under /passenger; resolves false (answering nothing) for any other. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Deletes subscriptions left unconfirmed past their deadline; resolves to how many. */
  sweep(): Promise<number>;
}

/** The passenger pages. */
export function passengerPages(options: PassengerPagesOptions): PassengerPages {
  const { redis, keys, store, secret, now } = options;
  const zone = options.context.zone;
  const limiter = new RateLimiter(redis, keys, options.limits);
  const pending = new PendingSubscriptions(redis, keys, store, options.pendingMs);
  const hours = Math.round(pending.pendingMs / 3_600_000);
  const report = options.onError ?? (() => undefined);

  const dates = () => formDates(now(), zone);
  const about = (s: Subscription, language: Language): About => ({
    flight: s.flight,
    date: dateInWords(s.date, language),
    email: s.channel.type === "email" ? s.channel.to : s.channel.url,
  });

  const subscribePage = (
    status: number,
    language: Language,
    values: FormValues,
    errors: FormErrors,
  ): Answer => {
    const w = wordsOf(language);
    const wrong = FORM_FIELDS.some((f) => errors[f] !== undefined);
    return {
      status,
      html: pageHtml({
        language,
        // Screen readers hear a failed submission first, in the title.
        title: wrong ? `${w.problemTitle}: ${w.subscribeTitle}` : w.subscribeTitle,
        heading: w.subscribeTitle,
        body: subscribeFormHtml(language, values, errors, dates()),
        queryFor: (l) => `?lang=${l}`,
      }),
    };
  };

  async function subscribe(req: IncomingMessage, url: URL): Promise<Answer> {
    const accept = req.headers["accept-language"];
    if (req.method === "GET" || req.method === "HEAD") {
      const language = pageLanguage(url.searchParams.get("lang"), undefined, accept);
      return subscribePage(200, language, {}, {});
    }
    if (req.method !== "POST") return notAllowed(url, accept, "GET, POST");
    const { fields, tooLarge } = await readForm(req);
    const language = pageLanguage(
      fields.get("lang") ?? url.searchParams.get("lang"),
      undefined,
      accept,
    );
    const w = wordsOf(language);
    const queryFor = (l: Language) => `?lang=${l}`;
    if (tooLarge)
      return message(413, language, w.notAllowedTitle, paragraphs(w.notAllowed), queryFor);
    if (crossOrigin(req)) {
      return message(403, language, w.notAllowedTitle, paragraphs(w.notAllowed), queryFor);
    }
    const client = await limiter.take(
      "client",
      clientNetwork(clientAddress(req, Boolean(options.trustProxy))),
    );
    if (!client.allowed) {
      return tooMany(
        language,
        w.tooManyFromClient(Math.ceil(client.retryAfterMs / 60_000)),
        client.retryAfterMs,
      );
    }
    const values: FormValues = {};
    for (const f of FORM_FIELDS) {
      const value = fields.get(f);
      if (value !== null) values[f] = value.trim();
    }
    const errors = checkForm(values, w, dates(), language);
    const id = newSubscriptionId();
    const at = now();
    let subscription: Subscription | undefined;
    if (Object.keys(errors).length === 0) {
      const checked = checkSubscription(
        {
          flight: values.flight,
          date: values.date,
          email: values.email,
          language: values.language ?? language,
          status: "pending",
        },
        options.context,
        id,
        at,
      );
      if ("problems" in checked) Object.assign(errors, formErrorsOf(checked.problems, w));
      else subscription = checked.subscription;
    }
    if (subscription === undefined) return subscribePage(422, language, values, errors);
    const mailer = options.mailer;
    if (mailer === undefined || options.from === undefined) {
      return message(503, language, w.unavailableTitle, paragraphs(w.noEmail), queryFor);
    }
    const to = subscription.channel.type === "email" ? subscription.channel.to : "";
    const address = await limiter.take("email", mailboxOf(to));
    if (!address.allowed) return tooMany(language, w.tooManyToEmail, address.retryAfterMs);
    // Asked before for this flight and date: no second subscription. A pending one gets
    // its confirmation again, an active one an email saying so — and the page says the
    // same as for a new one, so the form tells no stranger who follows what.
    const earlier = await sameAddress(subscription);
    if (earlier === undefined && !(await pending.add(subscription, at))) {
      return subscribePage(422, language, values, {
        date: w.dateOutOfRange(dates().min, dates().max),
      });
    }
    const target = earlier ?? subscription;
    const mailLanguage = target.language ?? language;
    const active = target.status === "active";
    const sent = await mailer.send(
      confirmationMessage({
        subscriptionId: target.id,
        about: about(target, mailLanguage),
        kind: active ? "already" : "confirm",
        link: options.links.url(active ? "status" : "confirm", target),
        language: mailLanguage,
        // A confirmation sent again says how long its link has left.
        hours: Math.max(1, Math.ceil((pending.deadline(target) - now()) / 3_600_000)),
        from: options.from,
      }),
      new Date(),
    );
    if (sent.outcome !== "sent") {
      // Nothing was confirmed or will be: no trace of it is kept.
      if (earlier === undefined) await store.remove(subscription.id);
      report(new Error(sent.detail ?? sent.outcome), "a confirmation email was not sent");
      if (sent.outcome === "refused") {
        return subscribePage(422, language, values, { email: w.emailRefused });
      }
      return message(503, language, w.unavailableTitle, paragraphs(w.sendFailed), queryFor);
    }
    const a = about(subscription, language);
    return message(
      200,
      language,
      w.sentTitle,
      paragraphs(w.sent(a), w.sentNothingElse(hours)),
      queryFor,
    );
  }

  /**
   * The subscription the form made before for this address (any case) to this flight
   * number and date, still pending or active — what the form makes: email, the
   * essentials, both directions. Matched by the address as written, not by mailbox:
   * the email then goes to the very address typed, so whether its server takes it
   * tells nothing of who follows what.
   */
  async function sameAddress(s: Subscription): Promise<Subscription | undefined> {
    if (s.channel.type !== "email") return undefined;
    const address = s.channel.to.toLowerCase();
    let cursor: string | undefined;
    do {
      const page = await store.list(
        { flight: s.flight, date: s.date },
        { limit: 1000, ...(cursor !== undefined ? { cursor } : {}) },
      );
      const found = page.subscriptions.find(
        (o) =>
          (o.status === "active" || (o.status === "pending" && pending.confirmable(o, now()))) &&
          o.channel.type === "email" &&
          o.channel.to.toLowerCase() === address &&
          o.direction === undefined &&
          o.changes === undefined &&
          o.preset === s.preset,
      );
      if (found) return found;
      cursor = page.cursor;
    } while (cursor !== undefined);
    return undefined;
  }

  /**
   * A page opened by a signed link: the subscription it names, the page's language and
   * its link's query in each language — or the answer to a link that is not valid.
   */
  async function opened(
    req: IncomingMessage,
    url: URL,
    purpose: LinkPurpose,
  ): Promise<
    | { answer: Answer }
    | {
        id: string;
        token: string;
        subscription?: Subscription;
        language: Language;
        w: PageWords;
        queryFor: (l: Language) => string;
      }
  > {
    const accept = req.headers["accept-language"];
    const token = url.searchParams.get("t") ?? undefined;
    const subject = verifyLink(secret, purpose, token);
    if (subject === undefined || token === undefined) {
      const language = pageLanguage(url.searchParams.get("lang"), undefined, accept);
      const w = wordsOf(language);
      return {
        answer: message(404, language, w.badLinkTitle, paragraphs(w.badLink), (l) => `?lang=${l}`),
      };
    }
    const id = subject.id;
    const stored = await store.get(id);
    // A subscription made later under the same id is not the one the link was made for.
    const subscription = stored?.createdAt === subject.createdAt ? stored : undefined;
    const language = pageLanguage(url.searchParams.get("lang"), subscription?.language, accept);
    const queryFor = (l: Language) => `?t=${token}&lang=${l}`;
    return {
      id,
      token,
      ...(subscription ? { subscription } : {}),
      language,
      w: wordsOf(language),
      queryFor,
    };
  }

  /**
   * Whether a browser says the form was posted from a page of another origin (`null`
   * included: what a page that hides its referrer sends). Clients that send no Origin
   * (not browsers) are taken.
   */
  function crossOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    return (
      req.method === "POST" &&
      options.origin !== undefined &&
      origin !== undefined &&
      origin !== options.origin
    );
  }

  async function confirm(req: IncomingMessage, url: URL): Promise<Answer> {
    if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "POST") {
      return notAllowed(url, req.headers["accept-language"], "GET, POST");
    }
    if (crossOrigin(req)) return notAllowed(url, req.headers["accept-language"], "GET");
    const page = await opened(req, url, "confirm");
    if ("answer" in page) return page.answer;
    const { subscription: s, language, w, queryFor, token } = page;
    if (s === undefined) return expired(language, queryFor);
    const confirmedPage = (subscription: Subscription) =>
      message(
        200,
        language,
        w.confirmedTitle,
        paragraphs(w.confirmed(about(subscription, language)), w.whatYouGet) +
          links([
            {
              href: `flight?t=${signLink(secret, "status", subscription)}&lang=${language}`,
              text: w.statusLink,
            },
            {
              href: `unsubscribe?t=${signLink(secret, "unsubscribe", subscription)}&lang=${language}`,
              text: w.unsubscribeLink,
            },
          ]),
        queryFor,
      );
    if (s.status === "active") return confirmedPage(s);
    if (s.status !== "pending") return ended(language, queryFor);
    if (!pending.confirmable(s, now())) return expired(language, queryFor);
    if (req.method !== "POST") {
      return message(
        200,
        language,
        w.confirmTitle,
        `<p class="lead">${escapeHtml(w.confirmQuestion(about(s, language)))}</p>\n${buttonForm(`confirm?t=${token}&lang=${language}`, {}, w.confirmButton)}\n<p class="muted after">${escapeHtml(w.confirmNotYou)}</p>`,
        queryFor,
      );
    }
    await readForm(req);
    const confirmed = await pending.confirm(s);
    if (confirmed === undefined) return expired(language, queryFor);
    // Unsubscribed between the page and the button: that stands.
    return confirmed.status === "active" ? confirmedPage(confirmed) : ended(language, queryFor);
  }

  function ended(language: Language, queryFor: (l: Language) => string): Answer {
    const w = wordsOf(language);
    return message(
      410,
      language,
      w.endedTitle,
      paragraphs(w.ended) + links([{ href: `subscribe?lang=${language}`, text: w.subscribeAgain }]),
      queryFor,
    );
  }

  function expired(language: Language, queryFor: (l: Language) => string): Answer {
    const w = wordsOf(language);
    return message(
      410,
      language,
      w.expiredTitle,
      paragraphs(w.expired(hours)) +
        links([{ href: `subscribe?lang=${language}`, text: w.subscribeAgain }]),
      queryFor,
    );
  }

  async function status(req: IncomingMessage, url: URL): Promise<Answer> {
    if (req.method !== "GET" && req.method !== "HEAD") {
      return notAllowed(url, req.headers["accept-language"], "GET");
    }
    const page = await opened(req, url, "status");
    if ("answer" in page) return page.answer;
    const { subscription: s, language, w, queryFor } = page;
    if (s === undefined) return ended(language, queryFor);
    const snapshot = await findSnapshot(redis, keys, s.flight, s.date);
    const a = about(s, language);
    const parts: string[] = [`<p class="lead">${escapeHtml(a.date)}</p>`];
    if (snapshot === undefined) {
      parts.push(paragraphs(w.notSeenYet));
    } else {
      const seen = flightFacts(snapshot, s.flight, zone, language, w);
      parts.push(panel(seen.headline, seen.facts, w.lastUpdate(seen.updated)));
    }
    const note =
      s.status === "active"
        ? w.sendingTo(a.email)
        : s.status === "pending"
          ? w.pendingNote
          : w.unsubscribedNote;
    parts.push(paragraphs(note));
    parts.push(
      links([
        { href: queryFor(language), text: w.refresh },
        ...(s.status === "active" || s.status === "pending"
          ? [
              {
                href: `unsubscribe?t=${signLink(secret, "unsubscribe", s)}&lang=${language}`,
                text: w.unsubscribeLink,
              },
            ]
          : []),
      ]),
    );
    return {
      status: 200,
      html: pageHtml({
        language,
        title: w.statusTitle(s.flight),
        body: parts.join("\n"),
        queryFor,
      }),
    };
  }

  async function unsubscribe(req: IncomingMessage, url: URL): Promise<Answer> {
    if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "POST") {
      return notAllowed(url, req.headers["accept-language"], "GET, POST");
    }
    const page = await opened(req, url, "unsubscribe");
    if ("answer" in page) return page.answer;
    const { subscription: s, language, w, queryFor, token, id } = page;
    const again = links([{ href: `subscribe?lang=${language}`, text: w.subscribeAgain }]);
    // RFC 8058: a one-click POST is answered 200 whatever there was to unsubscribe.
    if (s === undefined || s.status === "expired") {
      return message(
        200,
        language,
        w.unsubscribedTitle,
        paragraphs(w.nothingToUnsubscribe) + again,
        queryFor,
      );
    }
    const a = about(s, language);
    const done = () =>
      message(200, language, w.unsubscribedTitle, paragraphs(w.unsubscribed(a)) + again, queryFor);
    if (s.status === "unsubscribed") return done();
    if (req.method !== "POST") {
      return message(
        200,
        language,
        w.unsubscribeTitle,
        // The page's button sends what a one-click client sends: one way to unsubscribe.
        `<p class="lead">${escapeHtml(w.unsubscribeQuestion(a))}</p>\n${buttonForm(`unsubscribe?t=${token}&lang=${language}`, { "List-Unsubscribe": "One-Click" }, w.unsubscribeButton)}`,
        queryFor,
      );
    }
    await readForm(req);
    // The subscription the link was made for, not one made since under its id.
    await store.setStatus(id, "unsubscribed", { createdAt: s.createdAt });
    return done();
  }

  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    url: URL,
  ): Promise<void> {
    const page = path.slice(PASSENGER_PATH.length);
    if (page === "" || page === "/") {
      // Relative, so a proxy's path prefix stays.
      redirect(res, page === "" ? "passenger/subscribe" : "subscribe");
      return;
    }
    if (page === "/style.css") {
      send(res, 200, "text/css; charset=utf-8", PAGE_STYLE, {
        "cache-control": "public, max-age=3600",
      });
      return;
    }
    const routes: Record<string, (req: IncomingMessage, url: URL) => Promise<Answer>> = {
      "/subscribe": subscribe,
      "/confirm": confirm,
      "/flight": status,
      "/unsubscribe": unsubscribe,
    };
    const route = routes[page];
    let result: Answer;
    if (route === undefined) {
      const language = pageLanguage(
        url.searchParams.get("lang"),
        undefined,
        req.headers["accept-language"],
      );
      const w = wordsOf(language);
      result = message(
        404,
        language,
        w.notFoundTitle,
        paragraphs(w.notFound) +
          links([{ href: `subscribe?lang=${language}`, text: w.subscribeAgain }]),
        (l) => `?lang=${l}`,
      );
    } else {
      result = await route(req, url);
    }
    send(res, result.status, "text/html; charset=utf-8", result.html, result.headers);
  }

  return {
    async handle(req, res) {
      const url = new URL(req.url ?? "/", "http://passenger.invalid");
      const path = url.pathname;
      if (path !== PASSENGER_PATH && !path.startsWith(`${PASSENGER_PATH}/`)) return false;
      try {
        await answer(req, res, path, url);
      } catch (err) {
        report(err, `the passenger page ${path} failed`);
        if (res.headersSent) {
          res.destroy();
        } else {
          const w = wordsOf("en");
          send(
            res,
            500,
            "text/html; charset=utf-8",
            pageHtml({
              language: "en",
              title: w.unavailableTitle,
              body: paragraphs(w.sendFailed),
              queryFor: (l) => `?lang=${l}`,
            }),
          );
        }
      }
      return true;
    },
    sweep: () => pending.sweep(now()),
  };
}
