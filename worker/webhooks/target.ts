import type { WebhookTarget } from "../../platform/webhook-store.ts";
import { checkUrl } from "../../protocol/url-policy.ts";
import {
  MAX_WEBHOOK_HEADER_NAME_CHARS,
  MAX_WEBHOOK_HEADER_VALUE_CHARS,
  MAX_WEBHOOK_URL_CHARS,
} from "./limits.ts";

/**
 * The webhook fields of a create request (JSON body or form), checked once: the URL passes the same
 * SSRF guard as file_url (and again before every attempt: DNS may change), the auth header is a plain
 * token name that is not one the platform sets, its value one header line.
 */

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: no line breaks or NULs that could forge another header. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** Headers the platform sets on every delivery, and hop-by-hop ones a fetch manages itself. */
const RESERVED_HEADERS = new Set([
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "content-type",
  "content-length",
  "content-encoding",
  "host",
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** The three optional request fields as they arrive. */
export interface WebhookFields {
  webhook_url?: string | null;
  webhook_auth_header_name?: string | null;
  webhook_auth_header_value?: string | null;
}

export type WebhookVerdict = { ok: true; target: WebhookTarget | null } | { ok: false; reason: string };

/**
 * Checks the webhook fields; `target: null` when none were sent.
 *
 * @example checkWebhookFields({ webhook_url: "https://example.com/hook" }, new Set()) // ok
 */
export function checkWebhookFields(fields: WebhookFields, allowlist: ReadonlySet<string>): WebhookVerdict {
  const url = fields.webhook_url ?? null;
  const name = fields.webhook_auth_header_name ?? null;
  const value = fields.webhook_auth_header_value ?? null;
  if (url === null) {
    if (name !== null || value !== null) {
      return { ok: false, reason: "webhook_auth_header_name/value need a webhook_url" };
    }
    return { ok: true, target: null };
  }
  if (url.length > MAX_WEBHOOK_URL_CHARS) {
    return { ok: false, reason: `webhook_url is longer than ${MAX_WEBHOOK_URL_CHARS} characters` };
  }
  const verdict = checkUrl(url, { allowlist });
  if (!verdict.ok) return { ok: false, reason: `webhook_url: ${verdict.reason}` };
  if ((name === null) !== (value === null)) {
    return { ok: false, reason: "send webhook_auth_header_name and webhook_auth_header_value together" };
  }
  if (name === null || value === null) return { ok: true, target: { url, authHeader: null } };
  if (name.length > MAX_WEBHOOK_HEADER_NAME_CHARS || !TOKEN.test(name)) {
    return {
      ok: false,
      reason: `webhook_auth_header_name must be a header name (token characters, at most ${MAX_WEBHOOK_HEADER_NAME_CHARS})`,
    };
  }
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    return { ok: false, reason: `webhook_auth_header_name ${name} is set by the platform` };
  }
  if (value.length > MAX_WEBHOOK_HEADER_VALUE_CHARS || !FIELD_VALUE.test(value)) {
    return {
      ok: false,
      reason: `webhook_auth_header_value must be one line of printable ASCII, at most ${MAX_WEBHOOK_HEADER_VALUE_CHARS} characters`,
    };
  }
  return { ok: true, target: { url, authHeader: { name, value } } };
}
