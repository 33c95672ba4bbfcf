import { fetch, type Response } from "undici";
import {
  GuardedFetchError,
  guardedFetch as guardedFetchHops,
  type SendHop,
} from "../../protocol/guarded-fetch.ts";
import type { UrlPolicyOptions } from "../../protocol/url-policy.ts";
import { MediaError } from "./media-error.ts";
import { publicOnly } from "./public-only-dispatcher.ts";

/**
 * Fetches a user-supplied URL under the SSRF policy: the one guarded fetch of protocol/guarded-fetch.ts
 * (the URL rules on every redirect hop), each hop connecting only to public addresses (checked when
 * connecting). Failures are MediaErrors naming the cause. Allowlisted `host:port` entries (tests,
 * private deployments) skip the address rule.
 *
 * @example const response = await guardedFetch("https://example.com/talk.mp3", { signal });
 */
export async function guardedFetch(
  input: string,
  options: UrlPolicyOptions & { signal?: AbortSignal } = {},
): Promise<Response> {
  const send: SendHop<Response> = async (url, { allowlisted }) => {
    try {
      return await fetch(url, {
        redirect: "manual",
        signal: options.signal,
        ...(allowlisted ? {} : { dispatcher: publicOnly }),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new MediaError("media_unreachable", `cannot fetch the media from ${url.host}: ${causeOf(error)}`);
    }
  };
  let response: Response;
  try {
    ({ response } = await guardedFetchHops(input, send, options));
  } catch (error) {
    if (!(error instanceof GuardedFetchError)) throw error;
    const { failure } = error;
    if (failure.kind === "refused") {
      throw new MediaError("media_unreachable", `refused to fetch ${failure.url}: ${failure.reason}`);
    }
    throw new MediaError("media_unreachable", `the media URL: ${error.message}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new MediaError("media_unreachable", `the media URL answered HTTP ${response.status}`);
  }
  return response;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  if (code === "ENONPUBLIC") return cause?.message ?? "non-public address";
  if (code === "ENOTFOUND") return "the host name does not resolve";
  return code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
