/** `flightwatch simulate`: flag parsing, the in-process run, and a real process stopped by signals. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "undici";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildProgram, main } from "../../src/cli/main.js";
import { runSimulate, simulateOptions } from "../../src/cli/simulate-action.js";
import { DEFAULT_HTTP_PORT } from "../../src/config/daemon-config.js";
import { ErrorCode } from "../../src/errors.js";

const HEADERS = { accept: "application/json" };

function parseReport(text: string): { base: string; token?: string } {
  const base = /FLIGHT_API_BASE_URL=(\S+)/.exec(text)?.[1];
  if (!base) throw new Error(`no base URL in:\n${text}`);
  return { base, token: /FLIGHT_API_TOKEN=(\S+)/.exec(text)?.[1] };
}

describe("the simulator's default port", () => {
  it("is not run's HTTP_PORT, and the README points the client at it", () => {
    // The README runs `flightwatch simulate` beside the daemon (health on 8080).
    const port = simulateOptions({}, {}).port;
    expect(port).not.toBe(DEFAULT_HTTP_PORT);
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const block =
      /npx flightwatch simulate --token dev[^\n]*\nexport FLIGHT_API_BASE_URL=(\S+)/.exec(readme);
    expect(block?.[1]).toBe(`http://127.0.0.1:${port}/public/public-flights/v4`);
  });
});

describe("simulateOptions", () => {
  it("maps every flag onto the simulator and server options", () => {
    const options = simulateOptions({
      port: "0",
      host: "0.0.0.0",
      pageSize: "7",
      seed: "9",
      flightsPerDay: "300",
      speed: "60",
      changeRate: "2.5",
      start: "2026-10-25T01:30:00",
      zone: "Europe/Amsterdam",
      live: false,
      codesharesOperational: true,
      token: ["a", "b"],
      appId: "id",
      appKey: "key",
      admin: true,
      requireResourceVersion: true,
      requireAccept: false,
      fault5xx: "0.1",
      fault5xxStatuses: "502, 503",
      fault429: "0.05",
      retryAfter: "2",
      latency: "50ms",
      jitter: "1s",
      truncate: "0.01",
      drop: "0",
      stampLag: "5s",
      faultSeed: "4",
    });
    expect(options).toMatchObject({
      port: 0,
      host: "0.0.0.0",
      pageSize: 7,
      seed: 9,
      flightsPerDay: 300,
      speed: 60,
      changeRate: 2.5,
      // 01:30 local on 25 October 2026 is still summer time (+02:00).
      startMs: Date.UTC(2026, 9, 24, 23, 30),
      zone: "Europe/Amsterdam",
      live: false,
      codesharesMarkedOperational: true,
      tokens: ["a", "b"],
      appCredentials: [{ appId: "id", appKey: "key" }],
      admin: true,
      resourceVersion: "required",
      requireAccept: false,
      faultSeed: 4,
      faults: {
        serverErrorRate: 0.1,
        serverErrorStatuses: [502, 503],
        rateLimitRate: 0.05,
        retryAfterSeconds: 2,
        latencyMs: 50,
        jitterMs: 1000,
        truncateRate: 0.01,
        dropRate: 0,
        stampLagMs: 5000,
      },
    });
  });

  it("defaults: port 4010 on 127.0.0.1 (8080 is run's HTTP_PORT), live, auth on, zone from AIRPORT_TIMEZONE, token from FLIGHT_API_TOKEN", () => {
    const options = simulateOptions(
      {},
      { AIRPORT_TIMEZONE: "Europe/London", FLIGHT_API_TOKEN: "env-token" },
    );
    expect(options).toMatchObject({
      port: 4010,
      host: "127.0.0.1",
      pageSize: 20,
      live: true,
      zone: "Europe/London",
      tokens: ["env-token"],
      admin: false,
      resourceVersion: "optional",
      requireAccept: true,
      faults: {},
    });
    expect(options.auth).toBeUndefined();
    expect(simulateOptions({ auth: false }, { FLIGHT_API_TOKEN: "x" }).auth).toBe(false);
  });

  it.each([
    [{ port: "70000" }, "--port"],
    [{ port: "abc" }, "--port"],
    [{ pageSize: "0" }, "--page-size"],
    [{ speed: "0" }, "--speed"],
    [{ changeRate: "-1" }, "--change-rate"],
    [{ zone: "Mars/Olympus" }, "--zone"],
    [{ start: "yesterday" }, "--start"],
    [{ fault5xx: "1.5" }, "--fault-5xx"],
    [{ fault429: "x" }, "--fault-429"],
    [{ fault5xxStatuses: "500,404" }, "--fault-5xx-statuses"],
    [{ latency: "soon" }, "--latency"],
    [{ retryAfter: "-2" }, "--retry-after"],
    [{ appId: "only-id" }, "--app-id/--app-key"],
  ])("refuses %o with a ConfigError naming %s", (flags, flag) => {
    expect(() => simulateOptions(flags)).toThrowError(
      expect.objectContaining({ code: ErrorCode.CONFIG_INVALID, setting: flag }),
    );
  });
});

describe("runSimulate", () => {
  it("serves until aborted, printing the base URL and the token it accepts", async () => {
    let out = "";
    const controller = new AbortController();
    const done = runSimulate(simulateOptions({ port: "0", flightsPerDay: "200", live: false }), {
      write: (text) => {
        out += text;
      },
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(out).toContain("Ctrl-C stops."));
    const { base, token } = parseReport(out);
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const ok = await request(`${base}/airlines`, {
      headers: { ...HEADERS, authorization: `Bearer ${token}` },
    });
    expect(ok.statusCode).toBe(200);
    await ok.body.text();
    const refused = await request(`${base}/airlines`, { headers: HEADERS });
    expect(refused.statusCode).toBe(401);
    await refused.body.text();
    controller.abort();
    await done;
    expect(out).toContain("flightwatch simulator stopped");
    await expect(request(`${base}/airlines`, { headers: HEADERS })).rejects.toThrow();
  });

  it("names --port when the port is taken", async () => {
    const controller = new AbortController();
    let out = "";
    const first = runSimulate(simulateOptions({ port: "0", flightsPerDay: "50", live: false }), {
      write: (t) => {
        out += t;
      },
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(out).toContain("Ctrl-C stops."));
    const port = new URL(parseReport(out).base).port;
    await expect(
      runSimulate(simulateOptions({ port, flightsPerDay: "50" }), {
        write: () => {},
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.CONFIG_INVALID, setting: "--port" });
    controller.abort();
    await first;
  });
});

describe("flightwatch simulate", () => {
  afterEach(() => vi.restoreAllMocks());

  it("--help documents every option, with examples", () => {
    const simulate = buildProgram().commands.find((c) => c.name() === "simulate");
    const help = simulate?.helpInformation() ?? "";
    for (const option of simulate?.options ?? []) expect(help).toContain(option.long);
    let full = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      full += String(chunk);
      return true;
    });
    return main(["simulate", "--help"]).then((code) => {
      expect(code).toBe(0);
      expect(full).toContain("Examples:");
      expect(full).toContain("--fault-5xx 0.1");
    });
  });

  it("runs in-process through main and stops on SIGTERM", async () => {
    let out = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const exit = main([
      "simulate",
      "--port",
      "0",
      "--no-auth",
      "--flights-per-day",
      "100",
      "--no-live",
    ]);
    await vi.waitFor(() => expect(out).toContain("Ctrl-C stops."));
    const res = await request(`${parseReport(out).base}/destinations`, { headers: HEADERS });
    expect(res.statusCode).toBe(200);
    await res.body.text();
    process.emit("SIGTERM");
    expect(await exit).toBe(0);
    expect(process.listenerCount("SIGTERM")).toBe(0);
  });

  it.each(["SIGINT", "SIGTERM"] as const)(
    "a real process starts and exits 0 on %s, leaving nothing running",
    async (signal) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "--input-type=module",
          "-e",
          "import { main } from './src/cli/main.ts'; process.exitCode = await main(process.argv.slice(1));",
          "simulate",
          "--port",
          "0",
          "--no-auth",
        ],
        { cwd: new URL("../..", import.meta.url), stdio: ["ignore", "pipe", "pipe"] },
      );
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += String(chunk);
      });
      const exited = new Promise<number | null>((resolve) =>
        child.on("exit", (code) => resolve(code)),
      );
      await vi.waitFor(() => expect(out).toContain("Ctrl-C stops."), { timeout: 15_000 });
      // It says how long it took (the figure itself is `npm run bench -- simulator-server`'s).
      expect(out).toMatch(/started in \d+ ms/);
      const res = await request(`${parseReport(out).base}/flights`, { headers: HEADERS });
      expect(res.statusCode).toBe(200);
      await res.body.text();
      child.kill(signal);
      expect(await exited).toBe(0);
      expect(out).toContain("flightwatch simulator stopped");
    },
  );
});

describe("flightwatch simulate, bad flags", () => {
  afterEach(() => vi.restoreAllMocks());

  it("exits 2 with a message naming the flag", async () => {
    let err = "";
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      err += String(chunk);
      return true;
    });
    expect(await main(["simulate", "--fault-429", "2"])).toBe(2);
    expect(err).toContain("--fault-429");
    expect(err).toContain("FW_ERR_CONFIG_INVALID");
  });
});
