/**
 * Starts a complete simulator in-process: the Simulator facade (generated data,
 * live evolution) behind the HTTP server, listening. Tests, the daemon's embedded
 * default and `flightwatch simulate` all start it this way; port 0 picks a free port.
 */
import { API_BASE_PATH } from "../../api/contract.js";
import { createSimulator, type Simulator, type SimulatorOptions } from "../simulator.js";
import type { FaultInjector } from "./faults.js";
import type { AppCredentials } from "./simulator-auth.js";
import {
  createSimulatorServer,
  type SimulatorServer,
  type SimulatorServerOptions,
} from "./simulator-server.js";

/** Options of startSimulator: the facade's data options plus the server's. */
export interface StartSimulatorOptions
  extends Omit<SimulatorOptions, "stampLagMs">,
    Omit<SimulatorServerOptions, "store" | "simulator" | "auth" | "seed"> {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Serve this simulator instead of creating one from the data options. */
  simulator?: Simulator;
  /** Run live evolution on a real-time timer (default true); false serves the data as generated. */
  live?: boolean;
  /** `false` turns credential checks off. */
  auth?: false;
  /** Accepted bearer tokens (default: one generated token). */
  tokens?: string[];
  /** Accepted `app_id`/`app_key` pairs. */
  appCredentials?: AppCredentials[];
  /** Seed of the fault PRNG (default: the data seed). */
  faultSeed?: number;
}

/** A started simulator. */
export interface RunningSimulator {
  /** Origin, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** API base URL to point `FLIGHT_API_BASE_URL` at. */
  baseUrl: string;
  /** A bearer token the server accepts (undefined when auth is off or only app credentials are set). */
  token: string | undefined;
  simulator: Simulator;
  server: SimulatorServer;
  faults: FaultInjector;
  /** Stops evolution and the server; resolves when every connection is closed. */
  close(): Promise<void>;
}

/** Creates (unless given) and starts a simulator, and serves it over HTTP. */
export async function startSimulator(
  options: StartSimulatorOptions = {},
): Promise<RunningSimulator> {
  const simulator = options.simulator ?? createSimulator(options);
  const auth =
    options.auth === false
      ? false
      : options.tokens || options.appCredentials
        ? { tokens: options.tokens, appCredentials: options.appCredentials }
        : undefined;
  const server = createSimulatorServer({
    ...options,
    store: simulator.store,
    simulator,
    auth,
    seed: options.faultSeed ?? simulator.seed,
  });
  let url: string;
  try {
    url = await server.listen(options.port ?? 0, options.host ?? "127.0.0.1");
  } catch (err) {
    await server.close();
    throw err;
  }
  if (options.live ?? true) simulator.start();
  return {
    url,
    baseUrl: `${url}${API_BASE_PATH}`,
    token: server.tokens[0],
    simulator,
    server,
    faults: server.faults,
    async close() {
      simulator.stop();
      await server.close();
    },
  };
}
