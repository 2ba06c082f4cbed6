/**
 * Facts of the Public Read API v4 contract (`shared/spec/flight-api-v4.md`) as data:
 * paths, limits, enums and sort fields. The client validates against these before
 * sending and the simulator validates incoming requests against the same values,
 * so the two can never disagree about the contract.
 */

/** Path prefix of every operation, below the host. */
export const API_BASE_PATH = "/public/public-flights/v4";

/** Highest allowed value of `page` on every paged endpoint (zero-based). */
export const PAGE_MAX = 499;

/** Longest range `/flights/ids` accepts between `fromDateTime` and `toDateTime`, on the wall clock. */
export const FLIGHT_IDS_MAX_RANGE_MS = 3 * 24 * 60 * 60 * 1000;

/** Length limits of string parameters. */
export const LIMITS = {
  flightName: { min: 5, max: 8 },
  airline: { min: 2, max: 3 },
  iataMain: { min: 3, max: 3 },
  iataSub: { min: 3, max: 3 },
  destinationIata: { min: 3, max: 3 },
} as const;

/** A flight id: digits only. */
export const FLIGHT_ID_PATTERN = /^[0-9]+$/;
/** An airport code in `route`: IATA (3) or ICAO (4) letters/digits, any case. */
export const ROUTE_CODE_PATTERN = /^[A-Za-z0-9]{3,4}$/;
/** `yyyy-MM-dd`. */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** Airport-local `yyyy-MM-dd'T'HH:mm:ss`, no offset. */
export const LOCAL_DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
/** `HH:mm` for the `scheduleTime` query parameter. */
export const SCHEDULE_TIME_PATTERN = /^\d{2}:\d{2}$/;

/** Flight directions. */
export const FLIGHT_DIRECTIONS = ["A", "D"] as const;
export type FlightDirection = (typeof FLIGHT_DIRECTIONS)[number];

/** Allowed values of `searchDateTimeField` on `/flights`. */
export const SEARCH_DATE_TIME_FIELDS = [
  "estimatedLandingTime",
  "actualLandingTime",
  "publicEstimatedOffBlockTime",
  "actualOffBlockTime",
  "expectedTimeBoarding",
  "expectedTimeGateClosing",
  "expectedTimeGateOpen",
  "expectedTimeOnBelt",
  "scheduleDateTime",
  "lastUpdatedAt",
] as const;
export type SearchDateTimeField = (typeof SEARCH_DATE_TIME_FIELDS)[number];

/** Sort fields allowed per paged collection, and each collection's default sort. */
export const SORT_FIELDS = {
  flights: [
    "flightName",
    "scheduleDate",
    "scheduleTime",
    "flightDirection",
    "mainFlight",
    "airlineCode",
    "id",
    "estimatedLandingTime",
    "actualLandingTime",
    "publicEstimatedOffBlockTime",
    "actualOffBlockTime",
    "expectedTimeBoarding",
    "expectedTimeGateClosing",
    "expectedTimeGateOpen",
    "expectedTimeOnBelt",
    "scheduleDateTime",
    "lastUpdatedAt",
  ],
  airlines: ["publicName", "iata", "icao", "nvls"],
  aircraftTypes: ["iataMain", "iataSub", "longDescription", "shortDescription"],
  destinations: ["publicName.dutch", "publicName.english", "iata", "country", "city"],
} as const;
export type Collection = keyof typeof SORT_FIELDS;

export const DEFAULT_SORT: Record<Collection, string> = {
  flights: "+scheduleTime",
  airlines: "+iata",
  aircraftTypes: "+iataMain",
  destinations: "+iata",
};

/** One term of a sort expression. */
export interface SortTerm {
  field: string;
  descending: boolean;
}

/**
 * Parses a sort expression: comma-separated fields, each optionally prefixed by
 * `+`, `-` or a space (`-` = descending). Returns the first unknown field instead
 * of terms when one is not allowed for the collection.
 */
export function parseSort(
  collection: Collection,
  value: string,
): { ok: true; terms: SortTerm[] } | { ok: false; reason: string } {
  const allowed: readonly string[] = SORT_FIELDS[collection];
  const terms: SortTerm[] = [];
  for (const raw of value.split(",")) {
    let text = raw;
    let descending = false;
    const sign = text[0];
    if (sign === "+" || sign === " ") text = text.slice(1);
    else if (sign === "-") {
      descending = true;
      text = text.slice(1);
    }
    if (!allowed.includes(text)) {
      return {
        ok: false,
        reason: `unknown sort field "${text}"; allowed: ${allowed.join(", ")}`,
      };
    }
    terms.push({ field: text, descending });
  }
  return { ok: true, terms };
}
