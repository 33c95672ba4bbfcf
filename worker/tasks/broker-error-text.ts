/** Longest broker failure text /health shows. */
const MAX_CHARS = 200;

/** A stack frame line ("    at fn (file.js:1:2)"). */
const STACK_LINE = /^\s*at\s/;
/** Any absolute URL (credentials, host, path and query go with it). */
const URL_PATTERN = /[a-z][a-z0-9+.-]*:\/\/[^\s)"'<>]+/gi;
/** A bare IPv4 address, with its port if any. */
const ADDRESS_PATTERN = /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g;
/** An HTTP credential: the scheme stays, the token goes. */
const CREDENTIAL_PATTERN = /\b(Bearer|Basic)\s+[^\s)"',;]+/gi;
/** `name=value` or `name: value` where the name says it is a secret. */
const SECRET_PAIR_PATTERN =
  /\b([\w-]*(?:key|token|secret|password|passwd|signature|credential|session)[\w-]*)(\s*[=:]\s*)(?!<redacted>)[^\s&,;)"']+/gi;

/**
 * The text /health shows for a failed publish to the job broker (`job_queue_error`): the error's own
 * words, on one line, without stack frames, URLs, addresses or credentials, at most 200 characters.
 * The full error goes to the server log; this one is for an endpoint anyone may read.
 *
 * @example
 * brokerErrorText(new Error("publish to https://u:p@mq.example/q failed\n    at send (w.js:1:1)"));
 * // "publish to <url> failed"
 */
export function brokerErrorText(cause: unknown): string {
  const raw = cause instanceof Error ? cause.message : String(cause);
  const text = raw
    .split("\n")
    .filter((line) => !STACK_LINE.test(line))
    .join(" ")
    .replace(URL_PATTERN, "<url>")
    .replace(ADDRESS_PATTERN, "<address>")
    .replace(CREDENTIAL_PATTERN, "$1 <redacted>")
    .replace(SECRET_PAIR_PATTERN, "$1$2<redacted>")
    .replace(/\s+/g, " ")
    .trim();
  return (text || "job broker error (no message)").slice(0, MAX_CHARS);
}
