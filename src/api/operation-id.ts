/**
 * The contract's operation ids and the paths of the paged collections. Operation
 * ids label errors, exchange events and (later) metrics, so they are the
 * contract's own names rather than ours.
 */
import type { Collection } from "./contract.js";

/** Operation ids of the Public Read API v4, as the contract names them. */
export type OperationId =
  | "flightById"
  | "flightByIds"
  | "getFlights"
  | "getAirlines"
  | "getAirlinesByCode"
  | "getAircraftTypes"
  | "getDestinations"
  | "getDestinationsByCode";

/** Operation id and path (below the base URL) of each paged collection. */
export const COLLECTION_ENDPOINTS: {
  readonly [C in Collection]: { readonly operation: OperationId; readonly path: string };
} = {
  flights: { operation: "getFlights", path: "/flights" },
  airlines: { operation: "getAirlines", path: "/airlines" },
  aircraftTypes: { operation: "getAircraftTypes", path: "/aircrafttypes" },
  destinations: { operation: "getDestinations", path: "/destinations" },
};
