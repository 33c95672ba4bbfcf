import { describe, expect, it } from "vitest";
import { bearer, call, createKey, insideOneRateWindow, RATE_WINDOW_TEST_TIMEOUT_MS } from "./helpers.ts";
import { errorOf, fixtureUrl, postJson } from "./ingest-helpers.ts";

const ENDPOINTS = ["/transcribe", "/transcribe/object", "/transcribe/upload", "/uploads/presign"];

describe("authentication on the ingestion endpoints", () => {
  it("answers 401 without a key or with an unknown one", async () => {
    for (const path of ENDPOINTS) {
      for (const headers of [{}, bearer("vx_unknown")]) {
        const response = await call(path, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ file_url: fixtureUrl("/audio.mp3"), filename: "a.mp3" }),
        });
        const body = await errorOf(response, 401);
        expect(body.code, path).toBe("unauthorized");
      }
    }
  });
});

describe("rate limiting (the ENQUEUE_LIMITER binding, 60 per minute per key)", () => {
  it(
    "answers 429 with Retry-After once a key used up its minute, across all four endpoints",
    async () => {
      const { key } = await createKey("busy");
      await insideOneRateWindow();
      for (let i = 0; i < 60; i++) {
        const response = await postJson("/uploads/presign", key, { filename: `part-${i}.mp3` });
        expect(response.status, `request ${i + 1}`).toBe(200);
      }
      const limited = await postJson("/uploads/presign", key, { filename: "one-more.mp3" });
      expect(limited.headers.get("retry-after")).toBe("60");
      const body = await errorOf(limited, 429);
      expect(body).toEqual({ detail: expect.stringMatching(/too many requests/), code: "rate_limited" });
      for (const path of ENDPOINTS) {
        expect((await postJson(path, key, {})).status, path).toBe(429);
      }
      const other = await createKey("idle");
      expect((await postJson("/uploads/presign", other.key, { filename: "a.mp3" })).status).toBe(200);
    },
    RATE_WINDOW_TEST_TIMEOUT_MS,
  );
});
