/**
 * Record shapes of the Public Read API v4. The contract marks no field required,
 * so every field is optional; a `null` from the wire is normalised to "absent" by
 * the client. Unknown fields are kept (index signature) so newer upstream schema
 * versions pass through untouched.
 */
import {
  type FlightDirection,
  SEARCH_DATE_TIME_FIELDS,
  type SearchDateTimeField,
} from "./contract.js";

export interface AircraftTypeRef {
  iataMain?: string;
  iataSub?: string;
  [extra: string]: unknown;
}

export interface CheckinClass {
  code?: string;
  description?: string;
  [extra: string]: unknown;
}

export interface Desk {
  position?: number;
  checkinClass?: CheckinClass;
  [extra: string]: unknown;
}

export interface Row {
  position?: string;
  desks?: { desks?: Desk[]; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface CheckinAllocation {
  startTime?: string;
  endTime?: string;
  rows?: { rows?: Row[]; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface CheckinAllocations {
  checkinAllocations?: CheckinAllocation[];
  remarks?: { remarks?: string[]; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface Route {
  destinations?: string[];
  /** `S` Schengen, `E` Europe, `N` non-Europe. */
  eu?: string;
  visa?: boolean;
  [extra: string]: unknown;
}

/** One flight record. `id` is an 18-digit string: never convert it to a number. */
export interface Flight {
  id?: string;
  lastUpdatedAt?: string;
  scheduleDateTime?: string;
  scheduleDate?: string;
  scheduleTime?: string;
  actualLandingTime?: string;
  actualOffBlockTime?: string;
  estimatedLandingTime?: string;
  publicEstimatedOffBlockTime?: string;
  expectedTimeBoarding?: string;
  expectedTimeGateClosing?: string;
  expectedTimeGateOpen?: string;
  expectedTimeOnBelt?: string;
  expectedSecurityFilter?: string;
  aircraftRegistration?: string;
  aircraftType?: AircraftTypeRef;
  baggageClaim?: { belts?: string[]; [extra: string]: unknown };
  checkinAllocations?: CheckinAllocations;
  codeshares?: { codeshares?: string[]; [extra: string]: unknown };
  flightDirection?: FlightDirection;
  flightName?: string;
  flightNumber?: number;
  gate?: string;
  pier?: string;
  terminal?: number;
  isOperationalFlight?: boolean;
  mainFlight?: string;
  prefixIATA?: string;
  prefixICAO?: string;
  airlineCode?: number;
  publicFlightState?: { flightStates?: string[]; [extra: string]: unknown };
  route?: Route;
  serviceType?: string;
  transferPositions?: { transferPositions?: number[]; [extra: string]: unknown };
  schemaVersion?: string;
  [extra: string]: unknown;
}

export interface Airline {
  iata?: string;
  icao?: string;
  nvls?: number;
  publicName?: string;
  [extra: string]: unknown;
}

export interface AircraftType {
  iataMain?: string;
  iataSub?: string;
  longDescription?: string;
  shortDescription?: string;
  [extra: string]: unknown;
}

export interface Destination {
  iata?: string;
  city?: string;
  country?: string;
  publicName?: { dutch?: string; english?: string; [extra: string]: unknown };
  [extra: string]: unknown;
}

/**
 * Names of the fields of Flight that hold a date-time with an offset: exactly the
 * fields `/flights` can be searched by (`searchDateTimeField`).
 */
export const FLIGHT_DATE_TIME_FIELDS = SEARCH_DATE_TIME_FIELDS;
export type FlightDateTimeField = SearchDateTimeField;
