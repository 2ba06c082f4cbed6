/**
 * The words of notifications, per language: English (the default) and Dutch. A rule
 * (`language:` in its file) or a subscription chooses one; every text a person reads
 * — the flight, each change, states, times and their notes, an email's headings —
 * takes its words from here, so a language is added in one place. Values from the
 * upstream (gates, flight numbers, routes) are never translated.
 */

import type { ReminderMoment } from "../rules/rule.js";

/** The languages notifications can be written in. */
export const LANGUAGES = ["en", "nl"] as const;
export type Language = (typeof LANGUAGES)[number];

/** Every word and phrase a notification is built from, in one language. */
export interface Phrases {
  /** BCP 47 locale of weekday and month names (`Sat 21 Nov`). */
  locale: string;
  to: string;
  from: string;
  departs: string;
  arrives: string;
  wasToDepart: string;
  wasToArrive: string;
  newFlight: string;
  flightRemoved: string;
  flight: string;
  removed: string;
  new: string;
  status: string;
  noLonger: (state: string) => string;
  now: (state: string) => string;
  /** States that happen at a gate, in words naming it. */
  atGate: Readonly<Record<string, (gate: string) => string>>;
  states: Readonly<Record<string, string>>;
  times: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, string>>;
  late: (minutes: number) => string;
  early: (minutes: number) => string;
  onTime: string;
  later: (minutes: number) => string;
  earlier: (minutes: number) => string;
  correction: string;
  rows: string;
  desk: string;
  desks: string;
  arrival: string;
  departure: string;
  /** An email's list of changes, and its unsubscribe link. */
  changes: string;
  unsubscribe: string;
  /** The mark of a test notification (`flightwatch channels test`), before its headline. */
  test: string;
  /** `Reminder`: the heading of a reminder's list (email). */
  reminder: string;
  /** A reminder in one sentence: the flight, how soon (`in`, from `duration`), the gate. */
  reminders: Readonly<
    Record<ReminderMoment, (flight: string, inText: string, gate: string | undefined) => string>
  >;
  /** `2 h 5 min`, `30 min`. */
  duration: (minutes: number) => string;
}

/** `2 h 5 min`, `3 h`, `30 min` (the same in English and Dutch). */
function hoursAndMinutes(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

const EN: Phrases = {
  locale: "en-GB",
  to: "to",
  from: "from",
  departs: "departs",
  arrives: "arrives",
  wasToDepart: "was to depart",
  wasToArrive: "was to arrive",
  newFlight: "new flight",
  flightRemoved: "flight removed",
  flight: "flight",
  removed: "removed",
  new: "new",
  status: "status",
  noLonger: (state) => `no longer ${state}`,
  now: (state) => `now ${state}`,
  atGate: {
    GTO: (gate) => `gate ${gate} now open`,
    BRD: (gate) => `now boarding at gate ${gate}`,
    GCL: (gate) => `gate ${gate} now closing`,
    GTD: (gate) => `gate ${gate} now closed`,
  },
  // Public flight states (NOTES.md, "Flight states").
  states: {
    SCH: "scheduled",
    DEL: "delayed",
    WIL: "wait in lounge",
    GTO: "gate open",
    BRD: "boarding",
    GCH: "gate change",
    GCL: "gate closing",
    GTD: "gate closed",
    DEP: "departed",
    CNX: "cancelled",
    TOM: "moved to tomorrow",
    AIR: "airborne",
    EXP: "expected landing changed",
    FIR: "in national airspace",
    LND: "landed",
    FIB: "first bag on belt soon",
    ARR: "baggage handled",
    DIV: "diverted",
  },
  times: {
    estimatedLandingTime: "estimated landing",
    actualLandingTime: "landed at",
    publicEstimatedOffBlockTime: "estimated departure",
    actualOffBlockTime: "departed at",
    expectedTimeBoarding: "boarding",
    expectedTimeGateClosing: "gate closing",
    expectedTimeGateOpen: "gate open",
    expectedTimeOnBelt: "bags on belt",
  },
  fields: {
    gate: "gate",
    pier: "pier",
    terminal: "terminal",
    baggageClaim: "belt",
    checkinAllocations: "check-in",
    codeshares: "codeshares",
    aircraftType: "aircraft",
    aircraftRegistration: "registration",
    route: "route",
    serviceType: "service type",
  },
  late: (m) => `${m} min late`,
  early: (m) => `${m} min early`,
  onTime: "on time",
  later: (m) => `${m} min later`,
  earlier: (m) => `${m} min earlier`,
  correction: "correction",
  rows: "rows",
  desk: "desk",
  desks: "desks",
  arrival: "arrival",
  departure: "departure",
  changes: "Changes:",
  unsubscribe: "Unsubscribe",
  test: "TEST — no flight changed; a sample sent by `flightwatch channels test`:",
  reminder: "Reminder:",
  reminders: {
    boarding: (f, t, gate) => `Boarding for ${f} starts in ${t}${gate ? ` at gate ${gate}` : ""}`,
    gate_closing: (f, t, gate) =>
      `The gate for ${f} closes in ${t}${gate ? ` (gate ${gate})` : ""}`,
    departure: (f, t, gate) => `${f} departs in ${t}${gate ? ` from gate ${gate}` : ""}`,
    arrival: (f, t) => `${f} lands in ${t}`,
  },
  duration: hoursAndMinutes,
};

const NL: Phrases = {
  locale: "nl-NL",
  to: "naar",
  from: "uit",
  departs: "vertrekt",
  arrives: "landt",
  wasToDepart: "zou vertrekken",
  wasToArrive: "zou landen",
  newFlight: "nieuwe vlucht",
  flightRemoved: "vlucht vervallen",
  flight: "vlucht",
  removed: "vervallen",
  new: "nieuw",
  status: "status",
  noLonger: (state) => `niet meer ${state}`,
  now: (state) => `nu ${state}`,
  atGate: {
    GTO: (gate) => `gate ${gate} nu open`,
    BRD: (gate) => `instappen bij gate ${gate}`,
    GCL: (gate) => `gate ${gate} sluit nu`,
    GTD: (gate) => `gate ${gate} nu gesloten`,
  },
  states: {
    SCH: "gepland",
    DEL: "vertraagd",
    WIL: "wacht in de lounge",
    GTO: "gate open",
    BRD: "instappen",
    GCH: "gatewijziging",
    GCL: "gate sluit",
    GTD: "gate gesloten",
    DEP: "vertrokken",
    CNX: "geannuleerd",
    TOM: "verplaatst naar morgen",
    AIR: "in de lucht",
    EXP: "verwachte landingstijd gewijzigd",
    FIR: "in het Nederlandse luchtruim",
    LND: "geland",
    FIB: "eerste bagage bijna op de band",
    ARR: "bagage afgehandeld",
    DIV: "uitgeweken",
  },
  times: {
    estimatedLandingTime: "verwachte landing",
    actualLandingTime: "geland om",
    publicEstimatedOffBlockTime: "verwacht vertrek",
    actualOffBlockTime: "vertrokken om",
    expectedTimeBoarding: "instappen",
    expectedTimeGateClosing: "gate sluit",
    expectedTimeGateOpen: "gate open",
    expectedTimeOnBelt: "bagage op de band",
  },
  fields: {
    gate: "gate",
    pier: "pier",
    terminal: "terminal",
    baggageClaim: "bagageband",
    checkinAllocations: "inchecken",
    codeshares: "codeshares",
    aircraftType: "toestel",
    aircraftRegistration: "registratie",
    route: "route",
    serviceType: "soort vlucht",
  },
  late: (m) => `${m} min vertraagd`,
  early: (m) => `${m} min te vroeg`,
  onTime: "op tijd",
  later: (m) => `${m} min later`,
  earlier: (m) => `${m} min eerder`,
  correction: "correctie",
  rows: "rijen",
  desk: "balie",
  desks: "balies",
  arrival: "aankomst",
  departure: "vertrek",
  changes: "Wijzigingen:",
  unsubscribe: "Afmelden",
  test: "TEST — geen vlucht gewijzigd; een voorbeeld, verstuurd met `flightwatch channels test`:",
  reminder: "Herinnering:",
  reminders: {
    boarding: (f, t, gate) =>
      `Instappen voor ${f} begint over ${t}${gate ? ` bij gate ${gate}` : ""}`,
    gate_closing: (f, t, gate) =>
      `De gate voor ${f} sluit over ${t}${gate ? ` (gate ${gate})` : ""}`,
    departure: (f, t, gate) => `${f} vertrekt over ${t}${gate ? ` van gate ${gate}` : ""}`,
    arrival: (f, t) => `${f} landt over ${t}`,
  },
  duration: hoursAndMinutes,
};

const PHRASES: Readonly<Record<Language, Phrases>> = { en: EN, nl: NL };

/** The phrases of a language (English when none is given). */
export function phrasesOf(language: Language | undefined): Phrases {
  return PHRASES[language ?? "en"];
}

/** Whether a text names a language notifications can be written in. */
export function isLanguage(text: string): text is Language {
  return (LANGUAGES as readonly string[]).includes(text);
}
