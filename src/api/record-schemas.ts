/**
 * zod schemas of the upstream records, the runtime twin of `types.ts`. Every field
 * is optional (the contract marks none required) and every object is loose, so
 * fields a newer schema version adds pass through untouched. Values must already
 * be null-stripped (`stripNulls`): `null` is not accepted anywhere.
 */
import { z } from "zod";
import { FLIGHT_DIRECTIONS, FLIGHT_ID_PATTERN } from "./contract.js";
import type { AircraftType, Airline, Destination, Flight } from "./types.js";

// int64 in the contract; JSON numbers are exact only up to 2^53, which zod's int enforces.
const int = z.number().int();
const strings = z.array(z.string());

/** Record timestamps: `yyyy-MM-dd'T'HH:mm:ss[.SSS]` with `Z`, `+01:00` or `+0100`. */
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;
const dateTime = z
  .string()
  .regex(DATE_TIME_RE, "expected a date-time like 2026-11-21T10:00:00.000+01:00");

const aircraftTypeRefSchema = z.looseObject({
  iataMain: z.string().optional(),
  iataSub: z.string().optional(),
});

const deskSchema = z.looseObject({
  position: int.optional(),
  checkinClass: z
    .looseObject({ code: z.string().optional(), description: z.string().optional() })
    .optional(),
});

const rowSchema = z.looseObject({
  position: z.string().optional(),
  desks: z.looseObject({ desks: z.array(deskSchema).optional() }).optional(),
});

const checkinAllocationSchema = z.looseObject({
  startTime: dateTime.optional(),
  endTime: dateTime.optional(),
  rows: z.looseObject({ rows: z.array(rowSchema).optional() }).optional(),
});

const checkinAllocationsSchema = z.looseObject({
  checkinAllocations: z.array(checkinAllocationSchema).optional(),
  remarks: z.looseObject({ remarks: strings.optional() }).optional(),
});

const routeSchema = z.looseObject({
  destinations: strings.optional(),
  eu: z.string().optional(),
  visa: z.boolean().optional(),
});

/** A Flight record. `id` must be a digits-only string: an 18-digit id exceeds 2^53. */
export const flightSchema = z.looseObject({
  id: z.string().regex(FLIGHT_ID_PATTERN, "expected a digits-only string").optional(),
  lastUpdatedAt: dateTime.optional(),
  scheduleDateTime: dateTime.optional(),
  scheduleDate: z.string().optional(),
  scheduleTime: z.string().optional(),
  actualLandingTime: dateTime.optional(),
  actualOffBlockTime: dateTime.optional(),
  estimatedLandingTime: dateTime.optional(),
  publicEstimatedOffBlockTime: dateTime.optional(),
  expectedTimeBoarding: dateTime.optional(),
  expectedTimeGateClosing: dateTime.optional(),
  expectedTimeGateOpen: dateTime.optional(),
  expectedTimeOnBelt: dateTime.optional(),
  expectedSecurityFilter: z.string().optional(),
  aircraftRegistration: z.string().optional(),
  aircraftType: aircraftTypeRefSchema.optional(),
  baggageClaim: z.looseObject({ belts: strings.optional() }).optional(),
  checkinAllocations: checkinAllocationsSchema.optional(),
  codeshares: z.looseObject({ codeshares: strings.optional() }).optional(),
  flightDirection: z.enum(FLIGHT_DIRECTIONS).optional(),
  flightName: z.string().optional(),
  flightNumber: int.optional(),
  gate: z.string().optional(),
  pier: z.string().optional(),
  terminal: int.optional(),
  isOperationalFlight: z.boolean().optional(),
  mainFlight: z.string().optional(),
  prefixIATA: z.string().optional(),
  prefixICAO: z.string().optional(),
  airlineCode: int.optional(),
  publicFlightState: z.looseObject({ flightStates: strings.optional() }).optional(),
  route: routeSchema.optional(),
  serviceType: z.string().optional(),
  transferPositions: z.looseObject({ transferPositions: z.array(int).optional() }).optional(),
  schemaVersion: z.string().optional(),
});

/** An Airline record. */
export const airlineSchema = z.looseObject({
  iata: z.string().optional(),
  icao: z.string().optional(),
  nvls: int.optional(),
  publicName: z.string().optional(),
});

/** An AircraftType record. */
export const aircraftTypeSchema = z.looseObject({
  iataMain: z.string().optional(),
  iataSub: z.string().optional(),
  longDescription: z.string().optional(),
  shortDescription: z.string().optional(),
});

/** A Destination record. */
export const destinationSchema = z.looseObject({
  iata: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  publicName: z
    .looseObject({ dutch: z.string().optional(), english: z.string().optional() })
    .optional(),
});

/** The bare array `/flights/ids` answers with. */
export const flightIdListSchema = z.array(z.string());

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;

/**
 * Compile-time proof that each schema's output is exactly its `types.ts` record
 * type: a field added to one and not the other fails the type-check.
 */
export type RecordSchemasMatchTypes = [
  Assert<Same<z.output<typeof flightSchema>, Flight>>,
  Assert<Same<z.output<typeof airlineSchema>, Airline>>,
  Assert<Same<z.output<typeof aircraftTypeSchema>, AircraftType>>,
  Assert<Same<z.output<typeof destinationSchema>, Destination>>,
];
