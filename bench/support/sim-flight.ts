/** A flight record of the simulator, which always has an id. */
import type { Flight } from "../../src/api/types.js";

/** A flight of the simulator, with its id. */
export type SimFlight = Flight & { id: string };
