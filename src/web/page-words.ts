/**
 * The words of the passenger pages and of the confirmation email, in English and Dutch
 * (the languages of notifications, src/render/language.ts, which also names flight
 * states and times for the status page). A page's language is its `?lang=`, else the
 * subscription's, else the browser's Accept-Language, else English.
 */
import { isLanguage, type Language } from "../render/language.js";

/** What a sentence about one subscription fills in. */
export interface About {
  flight: string;
  /** The date in words (`Saturday 21 November 2026`). */
  date: string;
  email: string;
}

/** Every text of the pages and the confirmation email, in one language. */
export interface PageWords {
  /** Its own name, in itself (the language switch). */
  name: string;
  site: string;
  languageNav: string;
  footer: string;
  subscribeTitle: string;
  subscribeIntro: string;
  flightLabel: string;
  flightHint: string;
  dateLabel: string;
  dateHint: string;
  emailLabel: string;
  emailHint: string;
  languageLabel: string;
  subscribeButton: string;
  problemTitle: string;
  flightMissing: string;
  flightInvalid: string;
  dateMissing: string;
  dateInvalid: string;
  dateOutOfRange: (from: string, to: string) => string;
  emailMissing: string;
  emailInvalid: string;
  emailRefused: string;
  languageInvalid: string;
  sentTitle: string;
  sent: (a: About) => string;
  sentNothingElse: (hours: number) => string;
  tooManyTitle: string;
  tooManyFromClient: (minutes: number) => string;
  tooManyToEmail: string;
  unavailableTitle: string;
  noEmail: string;
  sendFailed: string;
  confirmTitle: string;
  confirmQuestion: (a: About) => string;
  confirmButton: string;
  confirmNotYou: string;
  confirmedTitle: string;
  confirmed: (a: About) => string;
  whatYouGet: string;
  statusLink: string;
  unsubscribeLink: string;
  expiredTitle: string;
  expired: (hours: number) => string;
  endedTitle: string;
  ended: string;
  subscribeAgain: string;
  statusTitle: (flight: string) => string;
  notSeenYet: string;
  lastUpdate: (time: string) => string;
  scheduled: string;
  stateLabel: string;
  gateLabel: string;
  terminalLabel: string;
  beltLabel: string;
  checkinLabel: string;
  sendingTo: (email: string) => string;
  pendingNote: string;
  unsubscribedNote: string;
  refresh: string;
  unsubscribeTitle: string;
  unsubscribeQuestion: (a: About) => string;
  unsubscribeButton: string;
  unsubscribedTitle: string;
  unsubscribed: (a: About) => string;
  nothingToUnsubscribe: string;
  badLinkTitle: string;
  badLink: string;
  notFoundTitle: string;
  notFound: string;
  notAllowedTitle: string;
  notAllowed: string;
  mailSubject: (flight: string, date: string) => string;
  mailText: (a: About, link: string, hours: number) => string;
  mailButton: string;
  /** The email to an address that asks again for a flight it already follows. */
  alreadySubject: (flight: string, date: string) => string;
  alreadyText: (a: About, link: string) => string;
  alreadyButton: string;
}

const EN: PageWords = {
  name: "English",
  site: "flightwatch",
  languageNav: "Language",
  footer:
    "Flight updates by email from flightwatch. No account, no tracking: each email has a link to stop them.",
  subscribeTitle: "Follow your flight",
  subscribeIntro:
    "Get an email when your gate changes, boarding starts, your flight is 15 minutes or more late, is cancelled or diverted, or when your baggage belt is known.",
  flightLabel: "Flight number",
  flightHint: "As on your ticket, for example KL1001",
  dateLabel: "Date of the flight",
  dateHint: "The day it departs from or arrives at this airport",
  emailLabel: "Email address",
  emailHint: "We first send one email to check it is yours",
  languageLabel: "Language of the emails",
  subscribeButton: "Follow this flight",
  problemTitle: "There is a problem",
  flightMissing: "Enter the flight number",
  flightInvalid: "Enter a flight number such as KL1001: an airline code and a number",
  dateMissing: "Enter the date of the flight",
  dateInvalid: "Enter the date as year-month-day, for example 2026-11-21",
  dateOutOfRange: (from, to) => `Enter a date from ${from} to ${to}`,
  emailMissing: "Enter your email address",
  emailInvalid: "Enter an email address such as anna@example.com",
  emailRefused: "The mail server refused this address: check it for typos",
  languageInvalid: "Choose English or Nederlands",
  sentTitle: "Check your email",
  sent: (a) =>
    `We sent an email to ${a.email}. Open the link in it to confirm that you want updates about ${a.flight} on ${a.date}.`,
  sentNothingElse: (hours) =>
    `Nothing else is sent until you confirm. The link works for ${hours} hours. If the email does not arrive within a few minutes, look in your spam folder.`,
  tooManyTitle: "Too many requests",
  tooManyFromClient: (minutes) =>
    `This form has been used too often from your network. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
  tooManyToEmail:
    "We have already sent several emails to this address today. Use the link in one of them, or try again tomorrow.",
  unavailableTitle: "Not possible right now",
  noEmail:
    "This service cannot send email at the moment, so it cannot take subscriptions. Try again later.",
  sendFailed: "We could not send the email just now. Try again in a few minutes.",
  confirmTitle: "Confirm your subscription",
  confirmQuestion: (a) => `Send updates about ${a.flight} on ${a.date} to ${a.email}?`,
  confirmButton: "Yes, send me updates",
  confirmNotYou: "If you did not ask for this, close this page: nothing will be sent.",
  confirmedTitle: "You are subscribed",
  confirmed: (a) => `We will email ${a.email} about ${a.flight} on ${a.date}.`,
  whatYouGet:
    "You hear about gate changes, boarding, delays of 15 minutes or more, a cancellation or diversion, and your baggage belt.",
  statusLink: "See the flight's status",
  unsubscribeLink: "Unsubscribe",
  expiredTitle: "This link has expired",
  expired: (hours) =>
    `Confirmation links work for ${hours} hours, and this subscription was not confirmed in time. Subscribe again to get a new link.`,
  endedTitle: "This subscription has ended",
  ended: "It was unsubscribed, or its flight is long past. Subscribe again if you want updates.",
  subscribeAgain: "Follow a flight",
  statusTitle: (flight) => `Flight ${flight}`,
  notSeenYet:
    "flightwatch has no news of this flight yet: it follows flights from a day before until a few days ahead. Come back closer to the day.",
  lastUpdate: (time) => `Last update from the airport: ${time}`,
  scheduled: "Scheduled time",
  stateLabel: "Status",
  gateLabel: "Gate",
  terminalLabel: "Terminal",
  beltLabel: "Baggage belt",
  checkinLabel: "Check-in",
  sendingTo: (email) => `Updates go to ${email}.`,
  pendingNote: "This subscription is not confirmed yet: use the link in the email we sent.",
  unsubscribedNote: "You unsubscribed: no more updates are sent.",
  refresh: "Refresh",
  unsubscribeTitle: "Unsubscribe",
  unsubscribeQuestion: (a) => `Stop the updates about ${a.flight} on ${a.date} to ${a.email}?`,
  unsubscribeButton: "Unsubscribe",
  unsubscribedTitle: "You are unsubscribed",
  unsubscribed: (a) => `No more emails about ${a.flight} on ${a.date} will be sent to ${a.email}.`,
  nothingToUnsubscribe:
    "There is nothing to unsubscribe: this subscription has already ended, and no more emails are sent.",
  badLinkTitle: "This link does not work",
  badLink: "Check that you opened the whole link from the email; a part of it may be missing.",
  notFoundTitle: "Page not found",
  notFound: "There is no such page.",
  notAllowedTitle: "Not allowed",
  notAllowed: "This page cannot be used that way.",
  mailSubject: (flight, date) => `Confirm: updates about ${flight} on ${date}`,
  mailText: (a, link, hours) =>
    [
      "Hello,",
      "",
      `Someone, hopefully you, asked for email updates about flight ${a.flight} on ${a.date}.`,
      "",
      "To confirm, open this link and press the button on the page:",
      link,
      "",
      `If it was not you, ignore this email: nothing more will be sent. The link works for ${hours} hours.`,
    ].join("\n"),
  mailButton: "Confirm",
  alreadySubject: (flight, date) => `You already follow ${flight} on ${date}`,
  alreadyText: (a, link) =>
    [
      "Hello,",
      "",
      `Someone, hopefully you, asked again for email updates about flight ${a.flight} on ${a.date}.`,
      "This address gets them already: nothing has changed, and you will not get them twice.",
      "",
      "The flight's status, and a way to stop the updates, are on this page:",
      link,
      "",
      "If it was not you, ignore this email.",
    ].join("\n"),
  alreadyButton: "See the flight",
};

const NL: PageWords = {
  name: "Nederlands",
  site: "flightwatch",
  languageNav: "Taal",
  footer:
    "Vluchtberichten per e-mail van flightwatch. Geen account, geen tracking: elke e-mail heeft een link om ze te stoppen.",
  subscribeTitle: "Volg je vlucht",
  subscribeIntro:
    "Krijg een e-mail als je gate verandert, het instappen begint, je vlucht 15 minuten of meer vertraagd is, geannuleerd of omgeleid wordt, of als je bagageband bekend is.",
  flightLabel: "Vluchtnummer",
  flightHint: "Zoals op je ticket, bijvoorbeeld KL1001",
  dateLabel: "Datum van de vlucht",
  dateHint: "De dag van vertrek van of aankomst op deze luchthaven",
  emailLabel: "E-mailadres",
  emailHint: "We sturen eerst één e-mail om te controleren dat het van jou is",
  languageLabel: "Taal van de e-mails",
  subscribeButton: "Volg deze vlucht",
  problemTitle: "Er is een probleem",
  flightMissing: "Vul het vluchtnummer in",
  flightInvalid: "Vul een vluchtnummer in zoals KL1001: een luchtvaartmaatschappij en een nummer",
  dateMissing: "Vul de datum van de vlucht in",
  dateInvalid: "Vul de datum in als jaar-maand-dag, bijvoorbeeld 2026-11-21",
  dateOutOfRange: (from, to) => `Vul een datum in van ${from} tot en met ${to}`,
  emailMissing: "Vul je e-mailadres in",
  emailInvalid: "Vul een e-mailadres in zoals anna@voorbeeld.nl",
  emailRefused: "De mailserver weigert dit adres: controleer het op typefouten",
  languageInvalid: "Kies English of Nederlands",
  sentTitle: "Kijk in je mailbox",
  sent: (a) =>
    `We hebben een e-mail gestuurd naar ${a.email}. Open de link daarin om te bevestigen dat je berichten wilt over ${a.flight} op ${a.date}.`,
  sentNothingElse: (hours) =>
    `Tot je bevestigt sturen we niets anders. De link werkt ${hours} uur. Komt de e-mail niet binnen een paar minuten binnen? Kijk dan in je spammap.`,
  tooManyTitle: "Te veel verzoeken",
  tooManyFromClient: (minutes) =>
    `Dit formulier is te vaak gebruikt vanaf jouw netwerk. Probeer het over ${minutes} ${minutes === 1 ? "minuut" : "minuten"} opnieuw.`,
  tooManyToEmail:
    "We hebben vandaag al meerdere e-mails naar dit adres gestuurd. Gebruik de link in een daarvan, of probeer het morgen opnieuw.",
  unavailableTitle: "Nu niet mogelijk",
  noEmail:
    "Deze dienst kan nu geen e-mail versturen en neemt daarom geen aanmeldingen aan. Probeer het later opnieuw.",
  sendFailed: "We konden de e-mail nu niet versturen. Probeer het over een paar minuten opnieuw.",
  confirmTitle: "Bevestig je aanmelding",
  confirmQuestion: (a) => `Berichten over ${a.flight} op ${a.date} sturen naar ${a.email}?`,
  confirmButton: "Ja, stuur mij berichten",
  confirmNotYou: "Heb je hier niet om gevraagd? Sluit dan deze pagina: we sturen niets.",
  confirmedTitle: "Je bent aangemeld",
  confirmed: (a) => `We mailen ${a.email} over ${a.flight} op ${a.date}.`,
  whatYouGet:
    "Je hoort het bij een gatewijziging, het instappen, 15 minuten of meer vertraging, een annulering of omleiding, en je bagageband.",
  statusLink: "Bekijk de status van de vlucht",
  unsubscribeLink: "Afmelden",
  expiredTitle: "Deze link is verlopen",
  expired: (hours) =>
    `Bevestigingslinks werken ${hours} uur, en deze aanmelding is niet op tijd bevestigd. Meld je opnieuw aan voor een nieuwe link.`,
  endedTitle: "Deze aanmelding is beëindigd",
  ended:
    "Je hebt je afgemeld, of de vlucht is al lang voorbij. Meld je opnieuw aan als je berichten wilt.",
  subscribeAgain: "Volg een vlucht",
  statusTitle: (flight) => `Vlucht ${flight}`,
  notSeenYet:
    "flightwatch heeft nog geen nieuws over deze vlucht: het volgt vluchten vanaf een dag ervoor tot een paar dagen vooruit. Kom dichter bij de dag terug.",
  lastUpdate: (time) => `Laatste update van de luchthaven: ${time}`,
  scheduled: "Geplande tijd",
  stateLabel: "Status",
  gateLabel: "Gate",
  terminalLabel: "Terminal",
  beltLabel: "Bagageband",
  checkinLabel: "Inchecken",
  sendingTo: (email) => `Berichten gaan naar ${email}.`,
  pendingNote:
    "Deze aanmelding is nog niet bevestigd: gebruik de link in de e-mail die we stuurden.",
  unsubscribedNote: "Je hebt je afgemeld: we sturen geen berichten meer.",
  refresh: "Vernieuwen",
  unsubscribeTitle: "Afmelden",
  unsubscribeQuestion: (a) => `Geen berichten meer over ${a.flight} op ${a.date} naar ${a.email}?`,
  unsubscribeButton: "Afmelden",
  unsubscribedTitle: "Je bent afgemeld",
  unsubscribed: (a) => `We sturen geen e-mails meer over ${a.flight} op ${a.date} naar ${a.email}.`,
  nothingToUnsubscribe:
    "Er is niets af te melden: deze aanmelding is al beëindigd en we sturen geen e-mails meer.",
  badLinkTitle: "Deze link werkt niet",
  badLink: "Controleer of je de hele link uit de e-mail hebt geopend; er kan een deel ontbreken.",
  notFoundTitle: "Pagina niet gevonden",
  notFound: "Deze pagina bestaat niet.",
  notAllowedTitle: "Niet toegestaan",
  notAllowed: "Deze pagina kan zo niet gebruikt worden.",
  mailSubject: (flight, date) => `Bevestig: berichten over ${flight} op ${date}`,
  mailText: (a, link, hours) =>
    [
      "Hallo,",
      "",
      `Iemand, hopelijk jij, heeft e-mailberichten gevraagd over vlucht ${a.flight} op ${a.date}.`,
      "",
      "Open deze link en druk op de knop op de pagina om te bevestigen:",
      link,
      "",
      `Was jij het niet? Negeer dan deze e-mail: we sturen niets meer. De link werkt ${hours} uur.`,
    ].join("\n"),
  mailButton: "Bevestigen",
  alreadySubject: (flight, date) => `Je volgt ${flight} op ${date} al`,
  alreadyText: (a, link) =>
    [
      "Hallo,",
      "",
      `Iemand, hopelijk jij, heeft opnieuw e-mailberichten gevraagd over vlucht ${a.flight} op ${a.date}.`,
      "Dit adres krijgt ze al: er verandert niets, en je krijgt ze niet dubbel.",
      "",
      "De status van de vlucht, en een manier om de berichten te stoppen, staan op deze pagina:",
      link,
      "",
      "Was jij het niet? Negeer dan deze e-mail.",
    ].join("\n"),
  alreadyButton: "Bekijk de vlucht",
};

const WORDS: Readonly<Record<Language, PageWords>> = { en: EN, nl: NL };

/** The words of a language. */
export function wordsOf(language: Language): PageWords {
  return WORDS[language];
}

/** `Saturday 21 November 2026` (`zaterdag 21 november 2026`) of a `yyyy-MM-dd` date. */
export function dateInWords(date: string, language: Language): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Intl.DateTimeFormat(language === "nl" ? "nl-NL" : "en-GB", {
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  }).format(new Date(Date.UTC(y, m - 1, d)));
}

/**
 * The language of a page: `?lang=` when it names one, else `preferred` (the
 * subscription's), else the first of Accept-Language that is one, else English.
 */
export function pageLanguage(
  query: string | null | undefined,
  preferred: Language | undefined,
  acceptLanguage: string | undefined,
): Language {
  if (query && isLanguage(query)) return query;
  if (preferred !== undefined) return preferred;
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, i) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return {
        base: tag.trim().toLowerCase().split("-")[0] ?? "",
        q: q === undefined ? 1 : Number(q),
        i,
      };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) if (isLanguage(r.base)) return r.base;
  return "en";
}
