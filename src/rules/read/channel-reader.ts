/**
 * Reads a rule's `channels` into ChannelSpecs: the type, the keys that type takes, `retry`,
 * URLs, email addresses, webhook secrets, Slack bot tokens and channel ids, and a name
 * for each (given, or the type, numbered when a rule has several of it). Webhook and
 * Slack URLs are https, without credentials, and do not name an internal address
 * (loopback, private, link-local …) unless the outbound policy (OUTBOUND_ALLOW) allows
 * it; plain http only to hosts the policy names. Host names are resolved only when a
 * send connects (src/outbound). A Slack channel is an incoming webhook (`url`) or a
 * channel through the Web API (`token` and `channel`), exactly one of the two. URLs,
 * secrets and tokens are credentials: messages describe them but never repeat them, and
 * the rule variables read into a Slack or webhook URL, a secret or a token are recorded
 * as secret.
 */

import type { OutboundPolicy } from "../../outbound/outbound-policy.js";
import {
  hasStrayBrace,
  TEMPLATE_FIELDS,
  unknownPlaceholders,
} from "../../render/alert-template.js";
import {
  CHANNEL_TYPES,
  type ChannelSpec,
  type ChannelType,
  type RetrySchedule,
  type SourcePosition,
} from "../rule.js";
import { suggestionHint } from "./did-you-mean.js";
import { readRetry } from "./retry-reader.js";
import { CHANNEL_KEYS } from "./rule-schema.js";
import { type EmptyList, type Entry, join, readItems, type TreeReader } from "./tree-reader.js";
import type { TreeNode } from "./yaml-tree.js";

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const EMAIL_RE = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:".]+$/;
/** Names of loopback hosts: plain http to them is allowed in links flightwatch never opens. */
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Standard Webhooks secrets are 24–64 random bytes; under 16 is too weak to sign with. */
const MIN_SECRET_BYTES = 16;
/** A Slack bot token: `xoxb-` and Slack's digits, letters and dashes. */
const SLACK_BOT_TOKEN_RE = /^xoxb-[A-Za-z0-9-]{8,}$/;
/**
 * A Slack channel id: public (`C…`), private or group (`G…`) or direct (`D…`), upper-case
 * letters and digits. An id, not a name: chat.update takes only ids, and an id survives
 * a rename.
 */
const SLACK_CHANNEL_RE = /^[CGD][A-Z0-9]{6,}$/;
/** Where the docs explain the Web API form of a Slack channel. */
const LIVING_DOCS = 'docs/delivery.md, "Living messages"';

const isChannelType = (text: string): text is ChannelType =>
  (CHANNEL_TYPES as readonly string[]).includes(text);

/**
 * What a channel's keys give, any type's, becoming the channel once named. Keys are only
 * added, in one order, and only when written (none is deleted after): channels written
 * alike share one hidden class, and hold exactly the keys written.
 */
interface ChannelFields {
  type?: ChannelType;
  source?: SourcePosition;
  retry?: RetrySchedule;
  url?: string;
  template?: string;
  to?: string[];
  subject?: string;
  unsubscribeUrl?: string;
  secret?: string;
  format?: "cloudevents" | "json";
  token?: string;
  channelId?: string;
  name?: string;
}

/** A channel read, before names are given. */
interface Draft {
  type: ChannelType;
  fields: ChannelFields;
  name?: string;
  /** Where the name was given, or the channel (for a default name). */
  nameNode: TreeNode;
  path: string;
}

/** Reads `channels`; undefined when it has problems (they are recorded). */
export function readChannels(
  r: TreeReader,
  node: TreeNode,
  path: string,
  outbound: OutboundPolicy,
): ChannelSpec[] | undefined {
  const read = (item: TreeNode, at: string): Draft | undefined =>
    readChannel(r, item, at, outbound);
  // One channel may be written without the list around it.
  const drafts =
    r.resolve(node).kind === "map"
      ? [read(node, path)]
      : readItems(r, node, path, "`channels`", NO_CHANNELS, read);
  if (!drafts || drafts[0] === undefined) return undefined;
  return nameChannels(r, drafts as Draft[]);
}

const NO_CHANNELS: EmptyList = {
  message: "`channels` is empty: a rule needs at least one channel",
  hint: "e.g. channels: [{ type: console }]",
};

/** Gives each channel its name (`slack`, or `slack-1`, `slack-2` …) and checks they differ. */
function nameChannels(r: TreeReader, drafts: Draft[]): ChannelSpec[] | undefined {
  const ofType = new Map<string, number>();
  for (const d of drafts) ofType.set(d.type, (ofType.get(d.type) ?? 0) + 1);
  const seen = new Map<string, number>();
  let ok = true;
  // `map`, not pushes: the array a rule keeps is sized exactly.
  const specs = drafts.map((d) => {
    const { type } = d;
    const nth = (seen.get(`#${type}`) ?? 0) + 1;
    seen.set(`#${type}`, nth);
    const name = d.name ?? ((ofType.get(type) ?? 0) > 1 ? `${type}-${nth}` : type);
    if (seen.has(name)) {
      r.problem(
        d.nameNode,
        d.name === undefined ? d.path : join(d.path, "name"),
        `two channels of this rule are named \`${name}\``,
        "give each channel of a rule its own `name`",
      );
      ok = false;
    }
    seen.set(name, 1);
    // The last key: the object read is the channel (a copy of it would cost more).
    d.fields.name = name;
    return d.fields as ChannelSpec;
  });
  return ok ? specs : undefined;
}

function readChannel(
  r: TreeReader,
  node: TreeNode,
  path: string,
  outbound: OutboundPolicy,
): Draft | undefined {
  const failedBefore = r.failures;
  const map = r.map(node, path, "a channel");
  if (!map) return undefined;
  const all = r.entries(map, path);
  const typeEntry = all.get("type");
  if (!typeEntry) {
    r.problem(map, path, "channel has no `type`", `write type: ${CHANNEL_TYPES.join(", ")}`);
    return undefined;
  }
  const written = r.string(typeEntry.value, join(path, "type"), "`type`");
  if (written === undefined) return undefined;
  if (!isChannelType(written)) {
    r.problem(
      typeEntry.value,
      join(path, "type"),
      `unknown channel type \`${written}\``,
      suggestionHint(written, CHANNEL_TYPES),
    );
    return undefined;
  }
  // The table's string, not the one read: every channel of the type (and its default
  // name) holds that one.
  const type = CHANNEL_TYPES[CHANNEL_TYPES.indexOf(written)] as ChannelType;
  const allowed = ["type", "name", ...CHANNEL_KEYS[type]];
  const entries = r.entries(map, path, allowed, (key) => {
    const owner = CHANNEL_TYPES.find((t) => t !== type && CHANNEL_KEYS[t].includes(key));
    if (owner === undefined) return undefined;
    const own = CHANNEL_KEYS[type];
    return `\`${key}\` is for ${owner} channels; ${type} channels take ${own.length > 0 ? own.map((k) => `\`${k}\``).join(", ") : "no options"}`;
  });
  const source: SourcePosition = r.position(node);
  // Built from an empty object, key by key: channels share hidden classes along one tree
  // of transitions (a copy made by spreading, as it was, got one of its own: 190 B each).
  const spec: ChannelFields = {};
  spec.type = type;
  spec.source = source;
  const draft: Draft = { type, fields: spec, nameNode: node, path };
  const put = <K extends keyof ChannelFields>(key: K, value: ChannelFields[K] | undefined) => {
    if (value !== undefined) spec[key] = value;
  };
  const nameEntry = entries.get("name");
  if (nameEntry) {
    const name = r.string(nameEntry.value, join(path, "name"), "`name`");
    if (name !== undefined && !NAME_RE.test(name)) {
      r.problem(
        nameEntry.value,
        join(path, "name"),
        `\`${name}\` is not a channel name`,
        "names are letters, digits, `.`, `_`, `-` (at most 64), starting with a letter or digit",
      );
    } else if (name !== undefined) {
      draft.name = name;
      draft.nameNode = nameEntry.value;
    }
  }
  const text = (key: string, what: string): string | undefined => {
    const entry = entries.get(key);
    return entry && r.string(entry.value, join(path, key), what);
  };
  const template = (key: string): string | undefined => {
    const value = text(key, `\`${key}\``);
    const entry = entries.get(key);
    if (value === undefined || !entry) return value;
    let ok = true;
    for (const name of unknownPlaceholders(value)) {
      ok = false;
      r.problem(
        entry.value,
        join(path, key),
        `unknown placeholder \`{${name}}\` in \`${key}\``,
        suggestionHint(name.trim(), [...TEMPLATE_FIELDS, "label.<key>"]),
      );
    }
    if (ok && hasStrayBrace(value)) {
      ok = false;
      r.problem(
        entry.value,
        join(path, key),
        `unmatched brace in \`${key}\``,
        "write {{ or }} for a literal brace",
      );
    }
    return ok ? value : undefined;
  };
  const url = (key: string, required: boolean): string | undefined => {
    const entry = entries.get(key);
    if (!entry) {
      if (required)
        r.problem(
          map,
          path,
          `${type} channel has no \`${key}\``,
          type === "slack"
            ? `add the incoming-webhook URL, e.g. ${key}: \${RULE_SLACK_URL}, or a bot token and channel id for living messages, e.g. token: \${SLACK_BOT_TOKEN} and channel: C0123ABCDEF (${LIVING_DOCS})`
            : `add the URL, e.g. ${key}: \${RULE_${type.toUpperCase()}_URL}`,
        );
      return undefined;
    }
    return readUrl(r, entry, join(path, key), key === "url" ? outbound : undefined);
  };
  const retry = entries.get("retry");
  if (retry) {
    // Shared by the channels written alike (frozen): a schedule is what is written.
    put(
      "retry",
      r.shared("retry", retry.value, () => readRetry(r, retry, join(path, "retry"))),
    );
  }
  switch (type) {
    case "slack":
      readSlackTarget(r, entries, map, path, {
        url: () =>
          put(
            "url",
            r.credential(() => url("url", true)),
          ),
        token: (entry) =>
          put(
            "token",
            r.credential(() => readSlackToken(r, entry, join(path, "token"))),
          ),
        channel: (entry) => put("channelId", readSlackChannel(r, entry, join(path, "channel"))),
      });
      put("template", template("template"));
      break;
    case "email": {
      put("to", readAddresses(r, entries.get("to"), map, path));
      put("subject", template("subject"));
      put("template", template("template"));
      put("unsubscribeUrl", url("unsubscribe_url", false));
      checkUnsubscribePlaceholder(
        r,
        entries.get("unsubscribe_url"),
        spec.unsubscribeUrl,
        join(path, "unsubscribe_url"),
      );
      break;
    }
    case "webhook": {
      put(
        "url",
        r.credential(() => url("url", true)),
      );
      const secret = entries.get("secret");
      if (secret)
        put(
          "secret",
          r.credential(() => readSecret(r, secret, join(path, "secret"))),
        );
      const format = text("format", "`format`");
      if (format !== undefined && format !== "cloudevents" && format !== "json") {
        r.problem(
          (entries.get("format") as Entry).value,
          join(path, "format"),
          `unknown webhook format \`${format}\``,
          suggestionHint(format, ["cloudevents", "json"]),
        );
      }
      put("format", format === "json" ? "json" : "cloudevents");
      break;
    }
    case "console":
      break;
  }
  return r.failures === failedBefore ? draft : undefined;
}

/**
 * Which form a Slack channel takes: `url` alone (an incoming webhook), or `token` and
 * `channel` (the Web API); the key or keys written are read by `read`. Mixing the two,
 * or half of the second, is a problem at the key that is too many, or at the channel.
 */
function readSlackTarget(
  r: TreeReader,
  entries: Map<string, Entry>,
  map: TreeNode,
  path: string,
  read: { url: () => void; token: (entry: Entry) => void; channel: (entry: Entry) => void },
): void {
  const url = entries.get("url");
  const token = entries.get("token");
  const channel = entries.get("channel");
  if (token === undefined && channel === undefined) {
    read.url();
    return;
  }
  if (url !== undefined) {
    const extra = (token ?? channel) as Entry;
    r.problem(
      extra.key,
      join(path, extra.name),
      "a slack channel takes `url` (an incoming webhook) or `token` and `channel` (the Web API), not both",
      `keep \`url\` for an incoming webhook, or replace it with \`token\` and \`channel\` for living messages (${LIVING_DOCS})`,
    );
    return;
  }
  if (token === undefined) {
    r.problem(
      map,
      path,
      "slack channel has `channel` but no `token`",
      `add the Slack app's bot token, e.g. token: \${SLACK_BOT_TOKEN} (${LIVING_DOCS})`,
    );
    return;
  }
  if (channel === undefined) {
    r.problem(
      map,
      path,
      "slack channel has `token` but no `channel`",
      "add the Slack channel's id, e.g. channel: C0123ABCDEF (in Slack: the channel's details, at the bottom of About)",
    );
    return;
  }
  read.token(token);
  read.channel(channel);
}

/** A Slack bot token (`xoxb-…`); a message about it never repeats it. */
function readSlackToken(r: TreeReader, entry: Entry, path: string): string | undefined {
  const text = r.string(entry.value, path, "`token`");
  if (text === undefined) return undefined;
  const token = text.trim();
  if (SLACK_BOT_TOKEN_RE.test(token)) return r.interner.string(token);
  r.problem(
    entry.value,
    path,
    token.startsWith("xoxb-")
      ? "`token` is not a Slack bot token (`xoxb-` and then letters, digits and dashes)"
      : `\`token\` is not a Slack bot token (it starts with ${token.startsWith("xox") ? `\`${token.slice(0, 5)}\`` : "something other than `xoxb-`"})`,
    `copy the Bot User OAuth Token (xoxb-…) from the app's OAuth & Permissions page into a rule variable, e.g. token: \${SLACK_BOT_TOKEN}`,
  );
  return undefined;
}

/** A Slack channel id (`C0123ABCDEF`), not its name. */
function readSlackChannel(r: TreeReader, entry: Entry, path: string): string | undefined {
  const text = r.string(entry.value, path, "`channel`");
  if (text === undefined) return undefined;
  const id = text.trim();
  if (SLACK_CHANNEL_RE.test(id)) return r.interner.string(id);
  r.problem(entry.value, path, channelIdProblem(id), SLACK_CHANNEL_HINT);
  return undefined;
}

const SLACK_CHANNEL_HINT = "in Slack, open the channel's details: its id is at the bottom of About";

/** What is wrong with a `channel` that is no id; a token put there by mistake is not repeated. */
function channelIdProblem(id: string): string {
  if (/^xox|^xapp-/.test(id)) {
    return "`channel` holds a Slack token, not a channel id such as C0123ABCDEF";
  }
  if (id.length > 40) return "`channel` is not a Slack channel id such as C0123ABCDEF";
  return /^[#@]|^[a-z0-9._-]+$/.test(id)
    ? `\`channel\` must be a Slack channel id such as C0123ABCDEF, not a name (\`${id}\`)`
    : `\`channel\` \`${id}\` is not a Slack channel id (such as C0123ABCDEF)`;
}

/**
 * A URL: https, or plain http to a host the policy names. With a policy (webhook and
 * Slack URLs, which flightwatch connects to) also no credentials and no refused address;
 * without one (an unsubscribe link, which only recipients open) http on loopback too.
 */
function readUrl(
  r: TreeReader,
  entry: Entry,
  path: string,
  outbound: OutboundPolicy | undefined,
): string | undefined {
  const text = r.string(entry.value, path, `\`${entry.name}\``);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    r.problem(
      entry.value,
      path,
      `\`${entry.name}\` is not a URL`,
      "write a full URL, e.g. https://example.com/hook",
    );
    return undefined;
  }
  const refusal = outbound?.refusalOfUrl(url);
  if (refusal !== undefined) {
    r.problem(entry.value, path, `\`${entry.name}\` is refused: ${refusal.message}`, refusal.hint);
    return undefined;
  }
  const plainOk = outbound === undefined ? LOOPBACK.has(url.hostname) : outbound.vouchesFor(url);
  if (url.protocol === "https:" || (url.protocol === "http:" && plainOk)) {
    return r.interner.string(text.trim());
  }
  r.problem(
    entry.value,
    path,
    `\`${entry.name}\` must be an https:// URL (it is ${url.protocol.replace(/:$/, "")}://${url.protocol === "http:" ? url.hostname : "…"})`,
    outbound === undefined
      ? "use https; plain http is allowed only on loopback (127.0.0.1, localhost, [::1]) for testing"
      : "use https; plain http is allowed only to internal receivers listed in OUTBOUND_ALLOW (docs/operations.md)",
  );
  return undefined;
}

/**
 * `unsubscribe_url` may hold `{recipient}` (each recipient's own link); any other
 * `{…}` is a typo that would otherwise reach every recipient as written.
 */
function checkUnsubscribePlaceholder(
  r: TreeReader,
  entry: Entry | undefined,
  url: unknown,
  path: string,
): void {
  if (entry === undefined || typeof url !== "string") return;
  const unknown = [...url.matchAll(/\{([^{}]*)\}/g)].find((m) => m[1] !== "recipient");
  if (unknown === undefined) return;
  r.problem(
    entry.value,
    path,
    `unknown placeholder \`${unknown[0]}\` in \`unsubscribe_url\``,
    "its only placeholder is {recipient}, the recipient's address (each gets a link of their own)",
  );
}

function readAddresses(
  r: TreeReader,
  entry: Entry | undefined,
  map: TreeNode,
  path: string,
): string[] | undefined {
  if (!entry) {
    r.problem(map, path, "email channel has no `to`", "e.g. to: [anna@example.com]");
    return undefined;
  }
  const empty = { message: "`to` is empty", hint: "list at least one address" };
  return readItems(r, entry.value, join(path, "to"), "`to`", empty, (item, at) => {
    const address = r.string(item, at, "an address")?.trim();
    if (address === undefined) return undefined;
    if (EMAIL_RE.test(address)) return r.interner.string(address);
    r.problem(item, at, `\`${address}\` is not an email address`, "write it as name@example.com");
    return undefined;
  });
}

function readSecret(r: TreeReader, entry: Entry, path: string): string | undefined {
  const text = r.string(entry.value, path, "`secret`");
  if (text === undefined) return undefined;
  const secret = text.trim();
  const body = secret.startsWith("whsec_") ? secret.slice(6) : undefined;
  if (body === undefined || body === "" || !BASE64_RE.test(body)) {
    r.problem(
      entry.value,
      path,
      "`secret` must be `whsec_` followed by base64",
      "a Standard Webhooks secret, e.g. whsec_ and 32 random bytes in base64",
    );
    return undefined;
  }
  if (Buffer.from(body, "base64").length < MIN_SECRET_BYTES) {
    r.problem(
      entry.value,
      path,
      `\`secret\` is shorter than ${MIN_SECRET_BYTES} bytes`,
      "use at least 24 random bytes (openssl rand -base64 32)",
    );
    return undefined;
  }
  return r.interner.string(secret);
}
