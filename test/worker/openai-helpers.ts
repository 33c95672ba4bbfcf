import { exports } from "cloudflare:workers";
import OpenAI from "openai";

/** Base URL of the compatible API inside the Worker tests. */
export const OPENAI_BASE = "http://voxedge.test/v1";

/**
 * The official OpenAI SDK pointed at the Worker's real fetch handler. `requests` counts the HTTP
 * requests it sent, so tests can see whether it retried.
 */
export function openai(apiKey: string, options: { maxRetries?: number } = {}) {
  const requests: Request[] = [];
  const client = new OpenAI({
    apiKey,
    baseURL: OPENAI_BASE,
    maxRetries: options.maxRetries ?? 0,
    fetch: (async (url: string | URL | Request, init?: RequestInit) => {
      const request = new Request(url, init);
      if (request.url.startsWith(OPENAI_BASE)) requests.push(request);
      return exports.default.fetch(request);
    }) as unknown as typeof fetch,
  });
  return { client, requests };
}

/** A small audio-looking file (the TestNode never decodes it). */
export function clip(name = "clip.wav", size = 2048): File {
  return new File([new Uint8Array(size).fill(7)], name, { type: "audio/wav" });
}
