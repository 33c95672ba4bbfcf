import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../platform/db.ts";
import { apiKeys } from "../../platform/schema.ts";
import { bearer, call, createKey } from "./helpers.ts";

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

  it("refuses a revoked key", async () => {
    const { id, key } = await createKey();
    expect((await call("/history", { headers: bearer(key) })).status).toBe(200);
    await db(env).update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id));
    const response = await call("/history", { headers: bearer(key) });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/revoked/);
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
