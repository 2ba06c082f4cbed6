/**
 * `flightwatch run` when the upstream starts refusing its credentials (a key revoked
 * or expired while it runs): an error line saying so, /readyz 503 at once (waiting
 * three intervals would not mend it), polls retried with backoff rather than every
 * interval — and when the credentials are accepted again, it carries on by itself.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatedFlights, waitFor } from "../support/crash-run.js";
import {
  baselineTaken,
  logLines,
  opsUrlOf,
  type RunRig,
  readyz,
  startRunRig,
  waitForLog,
} from "./run-harness.js";

/** A proxy to the simulator that answers 401 while `revoked`, counting the requests then. */
async function credentialProxy(target: string) {
  const state = { revoked: false, refused: 0 };
  let origin = () => "";
  const server: Server = createServer((req, res) => {
    if (state.revoked) {
      state.refused++;
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid credentials" }));
      return;
    }
    const url = new URL(req.url ?? "/", target);
    const headers: Record<string, string> = {};
    for (const name of ["accept", "authorization", "resourceversion", "user-agent"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    fetch(url, { headers }).then(
      async (answer) => {
        const body = Buffer.from(await answer.arrayBuffer());
        const headers: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (name === "content-encoding" || name === "transfer-encoding") return;
          // Paging links name the simulator: they must lead back through the proxy.
          headers[name] = name === "link" ? value.split(target).join(origin()) : value;
        });
        headers["content-length"] = String(body.length);
        res.writeHead(answer.status, headers);
        res.end(body);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = () => `http://127.0.0.1:${port}`;
  return {
    state,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe("flightwatch run: the upstream refuses the credentials", () => {
  let rig: RunRig;
  let proxy: Awaited<ReturnType<typeof credentialProxy>>;
  beforeAll(async () => {
    rig = await startRunRig("upstream-auth", 43);
    proxy = await credentialProxy(new URL(rig.sim.baseUrl).origin);
  });
  afterEach(async () => {
    await rig?.killAll();
  });
  afterAll(async () => {
    await proxy?.close();
    await rig?.close();
  });

  it("is an error, not ready at once, retried with backoff, and carries on once accepted", {
    timeout: 60_000,
  }, async () => {
    const path = new URL(rig.sim.baseUrl).pathname;
    const proc = rig.spawnRun([], {
      HTTP_PORT: "0",
      FLIGHT_API_BASE_URL: `${proxy.origin}${path}`,
    });
    const base = await opsUrlOf(proc);
    await baselineTaken(rig);
    await waitFor(async () => (await readyz(base)).status === 200, 20_000);

    proxy.state.revoked = true;
    const line = await waitForLog(proc, (l) => l.msg.startsWith("the upstream refuses"));
    expect(line.level).toBe("error");
    expect(line.msg).toMatch(/FLIGHT_API_TOKEN/);
    expect(line.msg).not.toContain(rig.token);
    const notReady = await readyz(base);
    expect(notReady.status).toBe(503);
    expect(notReady.checks.poll?.detail).toMatch(/^the upstream refuses the credentials/);

    // Polls go on, but backing off: at 300 ms intervals, 6 s would be 20 polls.
    const refusedAt = proxy.state.refused;
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const refusedSince = proxy.state.refused - refusedAt;
    expect(refusedSince).toBeGreaterThanOrEqual(1);
    expect(refusedSince).toBeLessThanOrEqual(6);
    const errors = logLines(proc).filter((l) => l.msg.startsWith("the upstream refuses"));
    expect(errors.length).toBe(1 + refusedSince);

    // Accepted again (the key was renewed upstream): ready, and changes are delivered.
    proxy.state.revoked = false;
    await waitFor(async () => (await readyz(base)).status === 200, 30_000);
    const before = rig.receiver.deliveries.length;
    const [flight] = gatedFlights(rig.sim, 1);
    if (!flight) throw new Error("no flight");
    rig.sim.simulator.apply({ kind: "update", target: { id: flight.id }, patch: { gate: "A9" } });
    await waitFor(async () => rig.receiver.deliveries.length > before, 30_000);
  });
});
