/**
 * Endpoints: where an HTTP channel sends (a webhook or Slack URL, or a Slack channel
 * through the Web API). Their URLs are secrets (Slack's path is the credential), and so
 * is a bot token, so records, logs and the command line use an id derived from them
 * and a masked label instead.
 */
import { createHash } from "node:crypto";
import { maskEndpointUrl } from "../log/mask-url.js";
import type { ChannelSpec } from "../rules/rule.js";

/** An HTTP channel's endpoint as shown to people. */
export interface Endpoint {
  /** `ep_` and 12 hex digits of SHA-256 of the URL. */
  id: string;
  /** Scheme, host and the first characters of the path: enough to recognise, not to use. */
  label: string;
}

/** The endpoint of a webhook or Slack channel; undefined for email and console. */
export function endpointOf(channel: ChannelSpec): Endpoint | undefined {
  if (channel.type !== "webhook" && channel.type !== "slack") return undefined;
  if (channel.type === "slack" && channel.token !== undefined) {
    // The channel and the token: another token posts as another app.
    return {
      id: `ep_${createHash("sha256").update(`${channel.token}\n${channel.channelId}`).digest("hex").slice(0, 12)}`,
      label: slackApiLabel(channel.channelId),
    };
  }
  return {
    id: `ep_${createHash("sha256").update(channel.url).digest("hex").slice(0, 12)}`,
    label: maskEndpointUrl(channel.url),
  };
}

/** Where a channel sends, for records: the masked endpoint, the recipients or `stdout`. */
export function destinationOf(channel: ChannelSpec): string {
  switch (channel.type) {
    case "email":
      return channel.to.join(", ");
    case "console":
      return "stdout";
    case "slack":
      return channel.token !== undefined
        ? slackApiLabel(channel.channelId)
        : maskEndpointUrl(channel.url);
    default:
      return maskEndpointUrl(channel.url);
  }
}

/** A Web API Slack channel as shown to people: its id, never the token. */
function slackApiLabel(channelId: string): string {
  return `Slack channel ${channelId} (Web API)`;
}
