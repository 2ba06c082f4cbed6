#!/usr/bin/env node
// Entry point of the `flightwatch` command; the code lives in dist/ (built by `npm ci`).
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`flightwatch: unexpected error: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);
