import { type LookupAddress, lookup } from "node:dns";
import { Agent, fetch, type Response } from "undici";
import { checkUrl, isPublicAddress, type UrlPolicyOptions } from "../../protocol/url-policy.ts";
import { MediaError } from "./media-error.ts";

const MAX_REDIRECTS = 5;

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * Resolves like dns.lookup but refuses names that resolve to a non-public address. Used at connect
 * time, so a name cannot pass a check and then be re-pointed (DNS rebinding) before the connection.
 */
function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      const refused = Object.assign(new Error(`${hostname} resolves to a non-public address`), {
        code: "ENONPUBLIC",
      });
      return callback(refused, []);
    }
    const first = addresses[0];
    if (options.all || !first) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}

const publicOnly = new Agent({ connect: { lookup: publicOnlyLookup as never } });

/**
 * Fetches a user-supplied URL under the SSRF policy: the URL rules of protocol/url-policy.ts on every
 * redirect hop, and connections only to public addresses (checked when connecting). Failures are
 * MediaErrors naming the cause. Allowlisted `host:port` entries (tests, private deployments) skip
 * the address rule.
 *
 * @example const response = await guardedFetch("https://example.com/talk.mp3", { signal });
 */
export async function guardedFetch(
  input: string,
  options: UrlPolicyOptions & { signal?: AbortSignal } = {},
): Promise<Response> {
  let url = input;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const verdict = checkUrl(url, options);
    if (!verdict.ok) throw new MediaError("media_unreachable", `refused to fetch ${url}: ${verdict.reason}`);
    const port = verdict.url.port || (verdict.url.protocol === "https:" ? "443" : "80");
    const allowlisted = options.allowlist?.has(`${verdict.url.hostname}:${port}`) ?? false;
    let response: Response;
    try {
      response = await fetch(verdict.url, {
        redirect: "manual",
        signal: options.signal,
        ...(allowlisted ? {} : { dispatcher: publicOnly }),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new MediaError(
        "media_unreachable",
        `cannot fetch the media from ${verdict.url.host}: ${causeOf(error)}`,
      );
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, verdict.url).toString();
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new MediaError("media_unreachable", `the media URL answered HTTP ${response.status}`);
    }
    return response;
  }
  throw new MediaError("media_unreachable", `the media URL redirected more than ${MAX_REDIRECTS} times`);
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  if (code === "ENONPUBLIC") return cause?.message ?? "non-public address";
  if (code === "ENOTFOUND") return "the host name does not resolve";
  return code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
