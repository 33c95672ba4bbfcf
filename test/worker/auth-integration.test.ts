import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { app } from "../../worker/app.ts";
import { bearer, call, countingEnv, createKey } from "./helpers.ts";

/** A request through the app with a changed environment (the key cache's TTL, a counted D1). */
async function fetchWith(changed: Env, path: string, key: string): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await app.fetch(
    new Request(`http://voxedge.test${path}`, { headers: bearer(key) }),
    changed,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

describe("API key authentication", () => {
  it("accepts Authorization: Bearer and x-api-key", async () => {
    const { key } = await createKey();
    expect((await call("/history", { headers: bearer(key) })).status).toBe(200);
    expect((await call("/history", { headers: { "x-api-key": key } })).status).toBe(200);
  });

  it("answers 401 with a JSON body for a missing, unknown or malformed key", async () => {
    for (const headers of [
      {},
      bearer("vx_not-a-real-key"),
      { authorization: "Basic abc" },
      { "x-api-key": "" },
    ]) {
      const response = await call("/history", { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toContain("application/json");
      const body = (await response.json()) as { code: string; detail: string };
      expect(body.code).toBe("unauthorized");
      expect(body.detail).toMatch(/API key/);
    }
  });

  it("refuses a revoked key within twice AUTH_CACHE_TTL_SEC, and at once with the cache off", async () => {
    const ttlOneSecond = { ...env, AUTH_CACHE_TTL_SEC: "1" };
    const { id, key } = await createKey();
    expect((await fetchWith(ttlOneSecond, "/history", key)).status).toBe(200);
    await db(env).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id));
    const revokedAt = Date.now();
    // Still cached: this request did not read D1.
    expect((await fetchWith(ttlOneSecond, "/history", key)).status).toBe(200);
    let refused: Response | null = null;
    while (!refused && Date.now() - revokedAt < 2_500) {
      const response = await fetchWith(ttlOneSecond, "/history", key);
      if (response.status === 401) refused = response;
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused?.status).toBe(401);
    expect(((await refused!.json()) as { detail: string }).detail).toMatch(/revoked/);

    const uncached = await createKey();
    const noCache = { ...env, AUTH_CACHE_TTL_SEC: "0" };
    expect((await fetchWith(noCache, "/history", uncached.key)).status).toBe(200);
    await db(env).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, uncached.id));
    expect((await fetchWith(noCache, "/history", uncached.key)).status).toBe(401);
  });

  it("authenticates repeat requests without reading D1", async () => {
    const { key } = await createKey();
    const counting = countingEnv();
    expect((await fetchWith(counting.env, "/v1/models", key)).status).toBe(200);
    expect(counting.statements).toHaveLength(1);
    for (let i = 0; i < 5; i++) expect((await fetchWith(counting.env, "/v1/models", key)).status).toBe(200);
    expect(counting.statements).toHaveLength(1);
  });

  it("stores only the SHA-256 of a key", async () => {
    const { id, key } = await createKey();
    const row = await db(env).select().from(apiKeys).where(eq(apiKeys.id, id)).get();
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(row?.keyHash).toBe(hex);
    expect(JSON.stringify(row)).not.toContain(key);
    expect(key.startsWith("vx_")).toBe(true);
    expect(key.length).toBeGreaterThanOrEqual(3 + 22); // at least 128 bits in base64url
  });

  it("internal routes refuse API keys and accept only the node token", async () => {
    const { key } = await createKey();
    for (const headers of [bearer(key), { "x-api-key": key }, {}]) {
      const response = await call("/internal/v1/lease", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(401);
    }
  });
});
