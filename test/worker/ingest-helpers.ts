import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { inject } from "vitest";
import { app } from "../../worker/app.ts";
import type { TaskAccepted } from "../../worker/schemas/tasks.ts";
import { bearer, call } from "./helpers.ts";

/** A URL on the local fixture server (test/helpers/fixture-server.ts), the only allowlisted host. */
export function fixtureUrl(path: string): string {
  return `${inject("fixtureOrigin")}${path}`;
}

/** POSTs JSON with an API key. */
export function postJson(path: string, key: string, body: unknown): Promise<Response> {
  return call(path, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Sends a request to a URL the API minted (upload_url, audio_url) through the Worker. */
export function callMinted(url: string, init: RequestInit = {}): Promise<Response> {
  const { pathname, search } = new URL(url);
  return call(`${pathname}${search}`, init);
}

/**
 * GETs a URL the way a deployment with MEDIA_REQUIRE_SIGNATURE=true answers it (the test Worker runs
 * with the default, which serves media without a signature).
 */
export async function getRequiringSignature(
  url: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  const { pathname, search } = new URL(url, "http://voxedge.test");
  return app.fetch(
    new Request(`http://voxedge.test${pathname}${search}`, { headers }),
    { ...env, MEDIA_REQUIRE_SIGNATURE: "true" },
    createExecutionContext(),
  );
}

/** Reads a 200 TaskAccepted, failing with the error body otherwise. */
export async function accepted(response: Response): Promise<TaskAccepted> {
  const body = (await response.json()) as TaskAccepted;
  if (response.status !== 200)
    throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** Reads an error body and checks its status. */
export async function errorOf(
  response: Response,
  status: number,
): Promise<{ detail: unknown; code: string }> {
  const body = (await response.json()) as { detail: unknown; code: string };
  if (response.status !== status) {
    throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(body)}`);
  }
  return body;
}

/** Deterministic test bytes. */
export function bytes(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export async function sha256(data: ArrayBuffer | Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
