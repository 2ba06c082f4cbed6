/**
 * The optional queue dashboard: Bull Board (its Hono adapter) over the delivery
 * queues, served by the ops server under `/queues`. Bull Board, Hono and their UI
 * are imported here only, and this module only when the dashboard is enabled, so a
 * daemon without `--dashboard` never loads them.
 *
 * It has no authentication of its own: the ops server asks every request under it for
 * DASHBOARD_TOKEN. It is read-only unless asked otherwise, so whoever holds the token
 * can look at notifications but not retry, promote, clean or delete them (`flightwatch
 * deliveries` is the audited way to re-send dead letters).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Queue } from "bullmq";

/** Options of the dashboard. */
export interface QueueDashboardOptions {
  /** The BullMQ queues to show (`DeliveryQueues.all()`). */
  queues: Queue[];
  /** Where it is served (default `/queues`). */
  basePath?: string;
  /** Hide the actions that change jobs (default true: nothing records who did what there). */
  readOnly?: boolean;
}

/** The dashboard as a node:http handler of every request under `basePath`. */
export interface QueueDashboard {
  /** Normalised: leading slash, no trailing slash. */
  basePath: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** Builds the dashboard (loading Bull Board and Hono on first use). */
export async function createQueueDashboard(
  options: QueueDashboardOptions,
): Promise<QueueDashboard> {
  const basePath = `/${(options.basePath ?? "/queues").replace(/^\/+|\/+$/g, "")}`;
  const readOnlyMode = options.readOnly ?? true;
  const [{ createBullBoard }, { BullMQAdapter }, { HonoAdapter }, { Hono }, node, statics] =
    await Promise.all([
      import("@bull-board/api"),
      import("@bull-board/api/bullMQAdapter"),
      import("@bull-board/hono"),
      import("hono"),
      import("@hono/node-server"),
      import("@hono/node-server/serve-static"),
    ]);
  const serverAdapter = new HonoAdapter(statics.serveStatic);
  serverAdapter.setBasePath(basePath);
  createBullBoard({
    queues: options.queues.map((queue) => new BullMQAdapter(queue, { readOnlyMode })),
    serverAdapter,
    options: { uiConfig: { boardTitle: "flightwatch", hideDocsLink: true } },
  });
  // Not strict: `/queues/` (what a browser keeps after the UI's own links) is `/queues` too.
  const app = new Hono({ strict: false });
  app.route(basePath, serverAdapter.registerPlugin());
  // The process's global Request/Response stay Node's own: other code (undici) shares them.
  const listener = node.getRequestListener(app.fetch, { overrideGlobalObjects: false });
  return {
    basePath,
    async handle(req, res) {
      await listener(req, res);
    },
  };
}
