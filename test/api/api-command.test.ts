/** `flightwatch api …` run in-process through `main`, against a contract server. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Flight } from "../../src/api/types.js";
import { main } from "../../src/cli/main.js";
import {
  type ContractServer,
  sampleFlights,
  startContractServer,
} from "../support/contract-server.js";

const TOKEN = "cli-token-5e1f";
const FLIGHTS = sampleFlights(45);

let server: ContractServer;
beforeAll(async () => {
  server = await startContractServer({
    flights: FLIGHTS,
    pageSize: 20,
    auth: { token: TOKEN },
    airlines: [
      { iata: "KL", icao: "KLM", nvls: 100, publicName: "KLM" },
      { iata: "HV", icao: "TRA", nvls: 200, publicName: "Transavia" },
    ],
    aircraftTypes: [{ iataMain: "73H", iataSub: "73H" }],
    destinations: [{ iata: "AMS", city: "Amsterdam" }],
  });
});
afterAll(() => server.close());

let stdout: string;
let stderr: string;
beforeEach(() => {
  stdout = "";
  stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  for (const name of [
    "FLIGHT_API_BASE_URL",
    "FLIGHT_API_APP_ID",
    "FLIGHT_API_APP_KEY",
    "AIRPORT_TIMEZONE",
  ]) {
    vi.stubEnv(name, "");
  }
  vi.stubEnv("FLIGHT_API_TOKEN", TOKEN);
  vi.stubEnv("FLIGHT_API_MAX_ATTEMPTS", "1");
  server.requests.splice(0);
  server.faults.splice(0);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const api = (...args: string[]): Promise<number> =>
  main(["api", ...args, "--base-url", server.baseUrl]);
const ids = (flights: readonly Flight[]): (string | undefined)[] => flights.map((f) => f.id);

describe("flightwatch api", () => {
  it("flights --page-all prints one JSON array of every page", async () => {
    expect(await api("flights", "--page-all")).toBe(0);
    expect(ids(JSON.parse(stdout) as Flight[])).toEqual(ids(FLIGHTS));
    expect(server.requests).toHaveLength(3);
    expect(stderr).toBe("");
  });

  it("flights --flight-direction D --page-all --ndjson streams one item per line", async () => {
    expect(await api("flights", "--flight-direction", "D", "--page-all", "--ndjson")).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as Flight).id)).toEqual(
      ids(FLIGHTS.filter((f) => f.flightDirection === "D")),
    );
    for (const r of server.requests) expect(r.url).toContain("flightDirection=D");
  });

  it("flights --page N prints that page and hints at more on stderr", async () => {
    expect(await api("flights", "--page", "1")).toBe(0);
    expect(ids(JSON.parse(stdout) as Flight[])).toEqual(ids(FLIGHTS.slice(20, 40)));
    expect(server.requests[0]?.url).toContain("page=1");
    expect(stderr).toContain("--page-all");
  });

  it("maps every query option to the camel-case parameter", async () => {
    expect(
      await api(
        "flights",
        "--schedule-date",
        "2026-11-21",
        "--schedule-time",
        "06:30",
        "--flight-name",
        "KL1001",
        "--airline-code",
        "100",
        "--route",
        "LHR,CDG",
        "--include-delays",
        "--from-date-time",
        "2026-11-21T06:00:00",
        "--to",
        "2026-11-21T08:00:00Z",
        "--search-date-time-field",
        "scheduleDateTime",
        "--from-schedule-date",
        "2026-11-20",
        "--to-schedule-date",
        "2026-11-22",
        "--is-operational-flight",
        "true",
        "--sort",
        "-scheduleTime",
      ),
    ).toBe(0);
    const q = new URL(server.requests[0]?.url ?? "", server.origin).searchParams;
    expect(Object.fromEntries(q)).toEqual({
      scheduleDate: "2026-11-21",
      scheduleTime: "06:30",
      flightName: "KL1001",
      airlineCode: "100",
      route: "LHR,CDG",
      includeDelays: "true",
      fromDateTime: "2026-11-21T06:00:00",
      toDateTime: "2026-11-21T09:00:00", // 08:00Z in Amsterdam
      searchDateTimeField: "scheduleDateTime",
      fromScheduleDate: "2026-11-20",
      toScheduleDate: "2026-11-22",
      isOperationalFlight: "true",
      sort: "-scheduleTime",
    });
  });

  it("flight <id> prints the record; an unknown id exits 3", async () => {
    expect(await api("flight", FLIGHTS[2]?.id ?? "")).toBe(0);
    expect(JSON.parse(stdout)).toEqual(FLIGHTS[2]);
    stdout = "";
    expect(await api("flight", "999999999999999999")).toBe(3);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/not found.*\[FW_ERR_NOT_FOUND\]\n$/);
  });

  it("flight-ids --from --to prints the ids as strings", async () => {
    expect(
      await api("flight-ids", "--from", "2026-11-21T06:00:00", "--to", "2026-11-21T06:10:00"),
    ).toBe(0);
    expect(JSON.parse(stdout)).toEqual(ids(FLIGHTS.slice(0, 3)));
  });

  it("--from/--to with offsets on the autumn day send one window covering the repeated hour", async () => {
    const window = ["--from", "2026-10-25T00:30:00Z", "--to", "2026-10-25T02:10:00+01:00"];
    expect(await api("flights", ...window)).toBe(0);
    expect(await api("flight-ids", ...window)).toBe(0);
    for (const request of server.requests) {
      const q = new URL(request.url, server.origin).searchParams;
      expect([q.get("fromDateTime"), q.get("toDateTime")]).toEqual([
        "2026-10-25T02:00:00",
        "2026-10-25T03:00:00",
      ]);
    }
    expect(server.requests).toHaveLength(2);
  });

  it("airlines, airline, aircraft-types, destinations and destination", async () => {
    expect(await api("airlines", "--page-all")).toBe(0);
    expect((JSON.parse(stdout) as unknown[]).length).toBe(2);
    stdout = "";
    expect(await api("airline", "KL")).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ icao: "KLM" });
    stdout = "";
    expect(await api("aircraft-types", "--iata-main", "73H")).toBe(0);
    expect(server.requests.at(-1)?.url).toContain("iataMain=73H");
    stdout = "";
    expect(await api("destinations")).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ iata: "AMS", city: "Amsterdam" }]);
    stdout = "";
    expect(await api("destination", "AMS")).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ iata: "AMS", city: "Amsterdam" });
  });

  it("reports malformed records on stderr, never in the stdout JSON", async () => {
    server.faults.push({
      kind: "body",
      body: JSON.stringify({ flights: [{ id: "1" }, { id: "2", terminal: "T2" }] }),
    });
    expect(await api("flights")).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ id: "1" }]);
    expect(stderr).toContain("skipped malformed record #1 (id 2)");
    expect(stderr).toContain("terminal");
  });

  it.each([
    [["flights", "--page", "500"], "page"],
    [["flights", "--page", "x"], "page"],
    [["flights", "--page", "1", "--page-all"], "page"],
    [["flights", "--airline", "KL", "--airline-code", "1"], "airline"],
    [["flights", "--airline-code", "-5"], "airlineCode"],
    [["flights", "--flight-name", "KL1"], "flightName"],
    [["flights", "--sort", "gate"], "sort"],
    [["flight-ids", "--from", "2026-11-21T00:00:00", "--to", "2026-11-25T00:00:00"], "toDateTime"],
    [["flight-ids", "--to", "2026-11-21T00:00:00"], "fromDateTime"],
    [["airline", "K"], "airline"],
    [["destination", "AMST"], "iata"],
    [["aircraft-types", "--iata-sub", "7"], "iataSub"],
  ])("%j exits 2 naming `%s`, sending nothing", async (args, param) => {
    expect(await api(...args)).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toContain(`\`${param}\``);
    expect(stderr).toContain("FW_ERR_INVALID_PARAM");
    expect(server.requests).toHaveLength(0);
    expect(stdout).toBe("");
  });

  it("configuration errors exit 2 naming the variable", async () => {
    vi.stubEnv("FLIGHT_API_TOKEN", "");
    expect(await main(["api", "flights"])).toBe(2);
    expect(stderr).toContain("FLIGHT_API_BASE_URL");
    expect(stderr).toContain("flightwatch simulate");
    stderr = "";
    expect(await main(["api", "flights", "--base-url", "ftp://x"])).toBe(2);
    expect(stderr).toContain("--base-url");
  });

  it("usage errors exit 2", async () => {
    expect(await api("flights", "--no-such-option")).toBe(2);
    expect(await api("flights", "--flight-direction", "X")).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it("upstream failures exit 1 with one line, and the token never shows", async () => {
    server.faults.push({ kind: "status", status: 503, body: TOKEN });
    expect(await api("flights")).toBe(1);
    expect(stderr).toMatch(/503.*\[FW_ERR_UPSTREAM_HTTP\]\n$/);
    expect(stderr).not.toContain(TOKEN);
    stderr = "";
    vi.stubEnv("FLIGHT_API_TOKEN", "wrong");
    expect(await api("airlines")).toBe(1);
    expect(stderr).toContain("FW_ERR_UPSTREAM_AUTH");
  });

  it("--help prints examples and exits 0", async () => {
    expect(await main(["api", "flights", "--help"])).toBe(0);
    expect(stdout).toContain("$ flightwatch api flights --flight-direction D --page-all");
    expect(stdout).toContain("--from-schedule-date");
  });
});
