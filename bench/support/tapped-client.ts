/**
 * A FlightApiClient that lets tests and benchmarks watch its `/flights` pages.
 */
import type { FlightApiClientOptions } from "../../src/api/client-options.js";
import type { Collection } from "../../src/api/contract.js";
import {
  FlightApiClient,
  type PageWalkOptions,
  type WalkQuery,
} from "../../src/api/flight-api-client.js";
import type { Page } from "../../src/api/paged-walk.js";
import type { CollectionItems } from "../../src/api/response-body.js";
import type { Flight } from "../../src/api/types.js";

/** Hears each page of a `/flights` walk once it has been consumed, before the next request. */
export type FlightsPageHook = (page: Page<Flight>) => void;

/**
 * A client whose `/flights` walks call a hook after each page is consumed (also
 * when the reader abandons the walk there), so the upstream can change between
 * one page response and the next request, as it does for a real poller.
 */
export class TappedClient extends FlightApiClient {
  readonly #hook: () => FlightsPageHook | undefined;

  readonly #rewrite: (<T>(page: Page<T>) => Page<T>) | undefined;

  /** `rewrite`, when given, changes each page before the caller sees it (e.g. its `date`). */
  constructor(
    options: FlightApiClientOptions,
    hook: () => FlightsPageHook | undefined,
    rewrite?: <T>(page: Page<T>) => Page<T>,
  ) {
    super(options);
    this.#hook = hook;
    this.#rewrite = rewrite;
  }

  override async *pages<C extends Collection>(
    collection: C,
    query?: WalkQuery<C>,
    options?: PageWalkOptions,
  ): AsyncGenerator<Page<CollectionItems[C]>, void, undefined> {
    for await (const page of super.pages(collection, query, options)) {
      try {
        yield this.#rewrite ? this.#rewrite(page) : page;
      } finally {
        if (collection === "flights") this.#hook()?.(page as Page<Flight>);
      }
    }
  }
}
