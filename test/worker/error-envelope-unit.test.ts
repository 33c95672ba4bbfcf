import { describe, expect, it } from "vitest";
import { contentEnvelope } from "../../worker/content/errors.ts";
import { ApiError } from "../../worker/errors.ts";
import { openAIEnvelope } from "../../worker/openai/errors.ts";
import { createRouter } from "../../worker/router.ts";

/**
 * A router answers errors in the envelope it was made with, wherever it is mounted: a content router
 * under /v1 does not fall into OpenAI's shape because of its path.
 */
describe("router-owned error envelopes", () => {
  const content = createRouter(contentEnvelope)
    .get("/refused", () => {
      throw new ApiError("not_found", "no such note");
    })
    .get("/crash", () => {
      throw new Error("a bug");
    });
  const app = createRouter(openAIEnvelope);
  app.route("/v1/new-service", content);
  app.get("/v1/other", () => {
    throw new ApiError("not_found", "no such thing");
  });

  it("renders a typed error in the router's envelope, not the prefix's", async () => {
    const response = await app.request("/v1/new-service/refused");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: "not found",
      error_key: "not_found",
      message: "no such note",
    });
    const openai = await app.request("/v1/other");
    expect(await openai.json()).toMatchObject({
      error: { message: "no such thing", type: "invalid_request_error" },
    });
  });

  it("renders anything else thrown as a 500 in the router's envelope, without the cause", async () => {
    const response = await app.request("/v1/new-service/crash");
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ error: "internal error", error_key: "internal_error", message: "internal error" });
    expect(JSON.stringify(body)).not.toContain("a bug");
  });

  it("answers a Durable Object's passing infrastructure error with a 503 to come back to, not a 500", async () => {
    // the properties Cloudflare documents on a Durable Object's infrastructure errors
    const reset = Object.assign(new Error("Durable Object reset because its code was updated."), {
      retryable: true,
    });
    const busy = Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
      overloaded: true,
      retryable: false,
    });
    const ours = Object.assign(new Error("a bug in the object's own code"), {
      remote: true,
      retryable: false,
    });
    const router = (envelope: typeof contentEnvelope) =>
      createRouter(envelope)
        .get("/reset", () => {
          throw reset;
        })
        .get("/busy", () => {
          throw busy;
        })
        .get("/ours", () => {
          throw ours;
        });
    for (const envelope of [contentEnvelope, openAIEnvelope]) {
      const app = router(envelope);
      const again = await app.request("/reset");
      expect(again.status).toBe(503);
      expect(again.headers.get("retry-after")).toBe("1");
      const text = await again.text();
      expect(text).toContain("briefly unavailable");
      expect(text).not.toContain("Durable Object");
      const later = await app.request("/busy");
      expect(later.status).toBe(503);
      expect(later.headers.get("retry-after")).toBe("5");
      expect(await later.text()).toContain("overloaded");
      expect((await app.request("/ours")).status).toBe(500);
    }
    const openai = await router(openAIEnvelope).request("/reset");
    expect(openai.headers.get("x-should-retry")).toBe("true");
  });
});
