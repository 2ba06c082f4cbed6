/**
 * Bulk export of subscriptions (`subscriptions export`): every stored subscription as a
 * line of a subscription file, read from the store a page at a time and written as it
 * comes, so that memory does not grow with their number. What it writes, `subscriptions
 * import --replace` reads back as the same subscriptions (webhook secrets masked unless
 * asked for: the import keeps the stored ones for them).
 */
import { type FileFormat, fileHeader, fileLine } from "./subscription-file.js";
import type { SubscriptionStore } from "./subscription-store.js";

/** Subscriptions read from the store at a time. */
const PAGE = 1000;

/** How an export goes. */
export interface ExportOptions {
  format: FileFormat;
  /** Webhook secrets as they are, not masked. */
  withSecrets?: boolean;
}

/**
 * Writes every stored subscription through `write` (a page of lines at a time; it
 * resolves when the text may be followed by more); resolves to how many.
 */
export async function exportSubscriptions(
  store: SubscriptionStore,
  write: (text: string) => Promise<void>,
  options: ExportOptions,
): Promise<number> {
  const header = fileHeader(options.format);
  if (header !== undefined) await write(`${header}\n`);
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list({}, { limit: PAGE, ...(cursor !== undefined ? { cursor } : {}) });
    const lines = page.subscriptions.map(
      (s) => `${fileLine(s, options.format, options.withSecrets === true)}\n`,
    );
    if (lines.length > 0) await write(lines.join(""));
    count += lines.length;
    cursor = page.cursor;
  } while (cursor !== undefined);
  return count;
}
