/**
 * Parses and validates the queries of the reference collections: `/airlines`,
 * `/aircrafttypes` (with its `iataMain`/`iataSub` filters) and `/destinations`.
 */
import { LIMITS, type SortTerm } from "../../api/contract.js";
import { ok, type QueryResult, readLength, readPage, readSort } from "./query-params.js";

/** A validated query of a paged reference collection. */
export interface ReferenceQuery {
  sort: SortTerm[];
  page: number;
  /** `/aircrafttypes` only: exact main IATA code. */
  iataMain?: string;
  /** `/aircrafttypes` only: exact sub IATA code. */
  iataSub?: string;
}

/** The reference collections, by the key their sort fields are listed under. */
export type ReferenceCollection = "airlines" | "aircraftTypes" | "destinations";

/** Parses the query of a reference collection. */
export function parseReferenceQuery(
  collection: ReferenceCollection,
  params: URLSearchParams,
): QueryResult<ReferenceQuery> {
  const page = readPage(params);
  if (!page.ok) return page;
  const sort = readSort(collection, params);
  if (!sort.ok) return sort;
  const query: ReferenceQuery = { sort: sort.value, page: page.value };
  if (collection === "aircraftTypes") {
    for (const name of ["iataMain", "iataSub"] as const) {
      const text = params.get(name);
      if (text === null) continue;
      const r = readLength(name, text, LIMITS[name]);
      if (!r.ok) return r;
      query[name] = r.value;
    }
  }
  return ok(query);
}
