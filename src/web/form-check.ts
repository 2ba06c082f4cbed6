/**
 * The subscribe form's own checks, in the page's words: each field that is missing or
 * malformed, before a subscription is tried — and a subscription's problems (the rule
 * reader's, in English) put on the field they came from. Pure.
 */
import { isLanguage, type Language } from "../render/language.js";
import { normaliseFlightNumber } from "../rules/flight-number.js";
import type { SubscriptionProblem } from "../subscriptions/subscription.js";
import { toLocalDate } from "../time/local-time.js";
import type { FormErrors, FormValues } from "./page-html.js";
import { dateInWords, type PageWords } from "./page-words.js";

/** Dates the form takes: from the day before today (a flight late past midnight) to a year ahead. */
const DAYS_AHEAD = 365;
/** An address with a domain that has a dot; the rule reader checks it again. */
const EMAIL_RE = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\]]+$/;

/** The first and last date the form takes at `now` (local to the airport, `yyyy-MM-dd`). */
export function formDates(now: number, zone: string): { min: string; max: string } {
  const today = toLocalDate(now, zone);
  return { min: addDays(today, -1), max: addDays(today, DAYS_AHEAD) };
}

/** What the form says is wrong before a subscription is even tried. */
export function checkForm(
  values: FormValues,
  w: PageWords,
  dates: { min: string; max: string },
  language: Language,
): FormErrors {
  const errors: FormErrors = {};
  if (!values.flight) errors.flight = w.flightMissing;
  else if (normaliseFlightNumber(values.flight) === undefined) errors.flight = w.flightInvalid;
  if (!values.date) errors.date = w.dateMissing;
  else if (
    !/^\d{4}-\d{2}-\d{2}$/.test(values.date) ||
    Number.isNaN(Date.parse(`${values.date}T00:00:00Z`))
  ) {
    errors.date = w.dateInvalid;
  } else if (values.date < dates.min || values.date > dates.max) {
    errors.date = w.dateOutOfRange(
      dateInWords(dates.min, language),
      dateInWords(dates.max, language),
    );
  }
  if (!values.email) errors.email = w.emailMissing;
  else if (values.email.length > 254 || !EMAIL_RE.test(values.email)) errors.email = w.emailInvalid;
  if (values.language !== undefined && !isLanguage(values.language))
    errors.language = w.languageInvalid;
  return errors;
}

/** A subscription's problems as the form's: each on the field it came from, in the page's words. */
export function formErrorsOf(problems: readonly SubscriptionProblem[], w: PageWords): FormErrors {
  const errors: FormErrors = {};
  for (const p of problems) {
    if (p.field === "flight") errors.flight = w.flightInvalid;
    else if (p.field === "date") errors.date = w.dateInvalid;
    else if (p.field === "language") errors.language = w.languageInvalid;
    // The address as the rule reader judges it; anything else is about it too.
    else errors.email = w.emailInvalid;
  }
  return errors;
}

/** `date` moved by `days` (`yyyy-MM-dd`). */
function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}
