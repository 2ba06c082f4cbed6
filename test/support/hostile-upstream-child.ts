/**
 * A process of its own that reads `/flights` pages from a hostile upstream with the
 * client, so its memory can be measured apart from the test runner and the server.
 * Usage: `node --import tsx hostile-upstream-child.ts <baseUrl> <requests> [maxBodyBytes]`.
 * Prints one JSON line: the RSS after a warm-up request, the peak RSS (the kernel's
 * high-water mark), and the error code of each request. A watchdog ends the process
 * (exit 3, `exceeded: true`) if its RSS passes 2 GB, so a client without bounds fails
 * the test instead of eating the machine.
 */
import { FlightApiClient } from "../../src/api/flight-api-client.js";
import { FlightwatchError } from "../../src/errors.js";

const WATCHDOG_BYTES = 2 * 1024 ** 3;

const [baseUrl, count, maxBody] = process.argv.slice(2);
if (baseUrl === undefined || count === undefined) {
  throw new Error("usage: hostile-upstream-child.ts <baseUrl> <requests> [maxBodyBytes]");
}

let peakSeen = 0;
const watchdog = setInterval(() => {
  const rss = process.memoryUsage.rss();
  peakSeen = Math.max(peakSeen, rss);
  if (rss > WATCHDOG_BYTES) {
    process.stdout.write(`${JSON.stringify({ exceeded: true, rss })}\n`);
    process.exit(3);
  }
}, 20);

const client = new FlightApiClient({
  baseUrl,
  // Retries at once: the test is about memory, not pacing.
  sleep: async () => undefined,
  ...(maxBody === undefined ? {} : { maxBodyBytes: Number(maxBody) }),
});
// The first request loads undici and the parsers: the baseline is taken after it.
await client.getFlights();
const baselineRss = process.memoryUsage.rss();
const codes: string[] = [];
for (let i = 0; i < Number(count); i++) {
  try {
    await client.getFlights();
    codes.push("ok");
  } catch (err) {
    codes.push(err instanceof FlightwatchError ? err.code : String(err));
  }
}
await client.close();
clearInterval(watchdog);
// maxRSS is in kilobytes on Linux: the true peak, between the watchdog's samples too.
const peakRss = Math.max(process.resourceUsage().maxRSS * 1024, peakSeen);
process.stdout.write(`${JSON.stringify({ baselineRss, peakRss, codes })}\n`);
