# syntax=docker/dockerfile:1
#
# The flightwatch daemon. Build: `docker build -t flightwatch .`; run: see
# docker-compose.yml and docs/operations.md.
#
# Two stages: `build` compiles the TypeScript with the dev dependencies; the runtime
# stage has the production dependencies, dist/, bin/ and the example rules, and runs
# `flightwatch run` as the unprivileged `node` user.
#
# Base image: Debian slim (glibc), not Alpine (musl). Alpine is about 25 MB smaller
# compressed, but the Node.js project builds and tests for glibc; musl is an
# experimental platform for it. No native module is installed either way. The tag pins the minor release (patch updates only);
# pin the digest as well (`node:24.20-trixie-slim@sha256:…`) for reproducible builds.
#
# No Docker engine runs where the tests run: test/deploy/dockerfile-replay.test.ts
# replays this file (COPY from the context as .dockerignore filters it, the RUN lines,
# then ENTRYPOINT + CMD and the HEALTHCHECK command). Keep RUN lines to `npm ci …` and
# `npm run …`, or teach the replay what a new command does.

FROM node:24.20-trixie-slim AS build
WORKDIR /app
# Dependencies first, so this layer is reused until package*.json change. No install
# scripts: `prepare` would build before the sources are here (the build is the next
# RUN), and the build needs only tsc, which has none.
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24.20-trixie-slim AS runtime
WORKDIR /app
# flightwatch listens on loopback unless told otherwise; in a container the probes,
# the published port and Prometheus come from outside it.
ENV NODE_ENV=production HTTP_PORT=8080 HTTP_HOST=0.0.0.0
COPY package.json package-lock.json ./
# Production dependencies only (53 MB instead of 76 MB). `--omit=optional` too: the
# lock marks typescript "devOptional" (an optional peer of valibot, under
# @bull-board/api), which `--omit=dev` alone keeps. The other optional packages are
# msgpackr's native accelerator and its build helpers, which BullMQ runs fine without;
# no production dependency needs an install script.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY rules ./rules
COPY --from=build /app/dist ./dist
# Files stay owned by root: the daemon reads them and writes nothing to disk.
USER node
EXPOSE 8080
# The daemon stops gracefully on SIGTERM (bounded by SHUTDOWN_TIMEOUT, default 10 s;
# give `docker stop -t` more than that). Node.js is PID 1 and handles SIGTERM/SIGINT
# itself; it starts no child processes, so there are no zombies to reap and no init
# (tini) is needed in the image (`docker run --init` or compose's `init: true` add one).
STOPSIGNAL SIGTERM
# Liveness, not readiness: /healthz answers while the process serves HTTP. /readyz
# also needs Redis and a recent successful poll; an unhealthy container may be
# restarted, and a restart cures neither an upstream outage nor a Redis one. Use
# /readyz for load balancers and alerting. Node.js itself makes the request (no curl
# in slim images); with HTTP_PORT=off there is nothing to check: disable the check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HTTP_PORT || '8080') + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# A young generation of 32 MB a semi-space (Node's default is 16): a busy daemon makes
# many short-lived objects per notification, and the larger nursery lets most die
# there instead of being copied and promoted — about a third less CPU per notification
# at thousands a second (BENCHMARKS.md, wire-speed), for up to 32 MB more memory.
ENTRYPOINT ["node", "--max-semi-space-size=32", "bin/flightwatch.js"]
CMD ["run"]
