/**
 * The passenger pages of one daemon process, once PUBLIC_URL is set: the signing key
 * (SUBSCRIPTION_SECRET or the deployment's in Redis), the links it signs — the
 * one-click unsubscribe URL every subscription's emails carry — the pages the HTTP port
 * serves, their confirmation mailer, and the regular sweep of unconfirmed subscriptions.
 */

import type { EmailSenderOptions } from "../deliver/email-sender.js";
import type { EmailSettings } from "../deliver/email-settings.js";
import type { RedisConnection } from "../store/redis-connection.js";
import type { RedisKeys } from "../store/redis-keys.js";
import type { SubscriptionContext } from "../subscriptions/subscription.js";
import { SubscriptionStore } from "../subscriptions/subscription-store.js";
import { ConfirmationMailer } from "./confirmation-email.js";
import { linkSecret } from "./link-secret.js";
import { type LinkSubject, passengerLinks } from "./link-token.js";
import {
  type PassengerPages,
  type PassengerPagesOptions,
  passengerPages,
} from "./passenger-pages.js";

/** What the passenger pages of a process are built from (the daemon's configuration). */
export interface PassengerWebOptions {
  redis: RedisConnection;
  keys: RedisKeys;
  /** The airport's zone and the outbound policy, as subscriptions are checked with. */
  context: SubscriptionContext;
  /** PUBLIC_URL, without its trailing slash. */
  publicUrl: string;
  /** SUBSCRIPTION_SECRET; absent, the deployment's key in Redis. */
  secret?: string;
  /** SMTP_URL and EMAIL_FROM; absent, the form cannot take subscriptions. */
  email?: EmailSettings;
  /** SUBSCRIPTION_RETENTION. */
  keepMs?: number;
  now: () => number;
  trustProxy?: boolean;
  /** TLS options of the SMTP connection (tests: a test server's certificate). */
  smtp?: Pick<EmailSenderOptions, "tls" | "timeoutMs">;
  /** Rate limits and the confirmation deadline, when not the defaults. */
  tuning?: Pick<PassengerPagesOptions, "limits" | "pendingMs">;
  onError?: (err: unknown, what: string) => void;
  /** How often unconfirmed subscriptions are looked for (default a minute). */
  sweepEveryMs?: number;
}

/** The passenger pages of a process, and the links of subscriptions' emails. */
export interface PassengerWeb {
  pages: PassengerPages;
  /** The one-click unsubscribe URL of a subscription (its emails' `List-Unsubscribe`). */
  unsubscribeUrl(subscription: LinkSubject): string;
  /** Stops the sweep and closes the mailer's connection. */
  close(): void;
}

/** Builds the pages (reading or making the signing key first) and starts the sweep. */
export async function startPassengerWeb(options: PassengerWebOptions): Promise<PassengerWeb> {
  const secret = await linkSecret(options.redis, options.keys, options.secret);
  const links = passengerLinks(options.publicUrl, secret);
  const store = new SubscriptionStore(options.redis, options.keys, {
    zone: options.context.zone,
    ...(options.keepMs !== undefined ? { keepMs: options.keepMs } : {}),
  });
  const mailer = options.email && new ConfirmationMailer(options.email, options.smtp);
  const pages = passengerPages({
    redis: options.redis,
    keys: options.keys,
    store,
    context: options.context,
    secret,
    links,
    ...(mailer ? { mailer, from: options.email?.from as string } : {}),
    now: options.now,
    ...(options.trustProxy ? { trustProxy: true } : {}),
    origin: new URL(options.publicUrl).origin,
    ...options.tuning,
    ...(options.onError ? { onError: options.onError } : {}),
  });
  const timer = setInterval(() => {
    pages
      .sweep()
      .catch((err: unknown) =>
        options.onError?.(err, "the sweep of unconfirmed subscriptions failed"),
      );
  }, options.sweepEveryMs ?? 60_000);
  timer.unref();
  return {
    pages,
    unsubscribeUrl: links.unsubscribeUrl,
    close() {
      clearInterval(timer);
      mailer?.close();
    },
  };
}
