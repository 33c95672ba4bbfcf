import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { newObjectKey } from "../../worker/ingest/object-keys.ts";
import { API_POLICY, CONSOLE_POLICY } from "../../worker/middleware/content-security.ts";
import { call } from "./helpers.ts";

/** The Content-Security-Policy the API origin sends, per kind of response (docs/api.md "Security"). */

const NAVIGATE = { "sec-fetch-mode": "navigate", accept: "text/html" };
const policyOf = async (path: string, init: RequestInit = {}) =>
  (await call(path, init)).headers.get("content-security-policy");

describe("Content-Security-Policy", () => {
  it("locks API responses down: JSON, errors, the OpenAPI document", async () => {
    for (const path of ["/health", "/models", "/openapi.json", "/no-such-route", "/history"]) {
      expect(await policyOf(path), path).toBe(API_POLICY);
    }
    expect(API_POLICY).toContain("default-src 'none'");
    expect(API_POLICY).toContain("frame-ancestors 'none'");
  });

  it("lets the console's pages load this origin's scripts and styles only", async () => {
    for (const path of ["/", "/history", "/join/2b7e1c4a-9f1d-4d57-8a55-0b7f3c1e2d4a"]) {
      expect(await policyOf(path, { headers: NAVIGATE }), path).toBe(CONSOLE_POLICY);
    }
    expect(CONSOLE_POLICY).toContain("script-src 'self';");
    expect(CONSOLE_POLICY).not.toContain("unsafe");
  });

  it("allows /docs exactly its own inline script, by hash", async () => {
    const response = await call("/docs", { headers: NAVIGATE });
    const html = await response.text();
    const policy = response.headers.get("content-security-policy") ?? "";
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)];
    expect(inline.length).toBeGreaterThan(0);
    const hashes = policy.match(/'sha256-[A-Za-z0-9+/=]+'/g) ?? [];
    expect(hashes.length).toBe(inline.filter((m) => m[1]).length);
    expect(policy).toMatch(/script-src 'self' 'sha256-/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it("lets media be framed by this origin only", async () => {
    const key = newObjectKey("clip.mp3");
    await env.MEDIA.put(key, "x", { httpMetadata: { contentType: "audio/mpeg" } });
    expect(await policyOf(`/media/${key}`)).toBe("frame-ancestors 'self'");
  });
});
