import { describe, expect, it } from "vitest";
import {
  classifyAttempt,
  nextStep,
  retryDelayMs,
  WEBHOOK_MAX_DELAY_MS,
} from "../../worker/webhooks/retry-policy.ts";
import { checkWebhookFields } from "../../worker/webhooks/target.ts";

const none = new Set<string>();

describe("webhook retry policy", () => {
  it("delivers on 2xx, retries no answer, 5xx and 429, refuses 3xx and other 4xx", () => {
    expect(classifyAttempt({ kind: "answered", status: 204 })).toBe("delivered");
    expect(classifyAttempt({ kind: "answered", status: 503 })).toBe("retry");
    expect(classifyAttempt({ kind: "answered", status: 429 })).toBe("retry");
    expect(classifyAttempt({ kind: "no_answer", error: "timed out" })).toBe("retry");
    expect(classifyAttempt({ kind: "answered", status: 302 })).toBe("refused");
    expect(classifyAttempt({ kind: "answered", status: 400 })).toBe("refused");
    expect(classifyAttempt({ kind: "blocked", reason: "not public" })).toBe("refused");
  });

  it("draws each delay below a doubling ceiling capped at an hour, at least a second", () => {
    expect(retryDelayMs(1, 10_000, () => 0.999)).toBe(9_990);
    expect(retryDelayMs(3, 10_000, () => 0.5)).toBe(20_000);
    expect(retryDelayMs(30, 10_000, () => 0.999)).toBeLessThanOrEqual(WEBHOOK_MAX_DELAY_MS);
    expect(retryDelayMs(1, 10_000, () => 0)).toBe(1000);
  });

  it("gives up once the next attempt would fall 24 h after the task ended", () => {
    const day = 24 * 3600 * 1000;
    const retry = { kind: "answered", status: 500 } as const;
    expect(nextStep(retry, { attempt: 2, endedAt: 0, now: 1000, baseMs: 1000, random: () => 0.5 })).toEqual({
      status: "pending",
      delayMs: 1000,
    });
    expect(
      nextStep(retry, { attempt: 40, endedAt: 0, now: day - 1000, baseMs: 1000, random: () => 0.9 }).status,
    ).toBe("failed");
    expect(
      nextStep({ kind: "answered", status: 404 }, { attempt: 1, endedAt: 0, now: 0, baseMs: 1000 }).status,
    ).toBe("failed");
  });
});

describe("a webhook attempt deferred by its host's circuit breaker", () => {
  const deferred = { kind: "deferred", until: 100_000, reason: "circuit open" } as const;

  it("counts as a failed attempt and waits for the breaker or its own backoff, whichever is later", () => {
    expect(classifyAttempt(deferred)).toBe("retry");
    const context = { attempt: 1, endedAt: 0, now: 10_000, baseMs: 10_000, random: () => 0.5 };
    expect(nextStep(deferred, context)).toEqual({ status: "pending", delayMs: 90_000 });
    expect(nextStep(deferred, { ...context, attempt: 8 })).toEqual({ status: "pending", delayMs: 640_000 });
  });

  it("gives up when the breaker would hold it past 24 h after the task ended", () => {
    const late = { ...deferred, until: 24 * 3_600_000 + 1 };
    expect(nextStep(late, { attempt: 3, endedAt: 0, now: 1_000, baseMs: 10_000 })).toMatchObject({
      status: "failed",
    });
  });
});

describe("webhook request fields", () => {
  it("accepts none, a URL, or a URL with an auth header", () => {
    expect(checkWebhookFields({}, none)).toEqual({ ok: true, target: null });
    expect(checkWebhookFields({ webhook_url: "https://example.com/h" }, none)).toEqual({
      ok: true,
      target: { url: "https://example.com/h", authHeader: null },
    });
    expect(
      checkWebhookFields(
        {
          webhook_url: "https://example.com/h",
          webhook_auth_header_name: "Authorization",
          webhook_auth_header_value: "Bearer x",
        },
        none,
      ).ok,
    ).toBe(true);
  });

  it("refuses private targets, odd header names, reserved headers, line breaks and halves", () => {
    for (const fields of [
      { webhook_url: "http://127.0.0.1/h" },
      { webhook_url: "http://169.254.169.254/latest" },
      { webhook_url: "ftp://example.com/h" },
      { webhook_url: `https://example.com/${"a".repeat(2100)}` },
      { webhook_auth_header_name: "X-A", webhook_auth_header_value: "b" },
      { webhook_url: "https://example.com/h", webhook_auth_header_name: "X-A" },
      {
        webhook_url: "https://example.com/h",
        webhook_auth_header_name: "X A",
        webhook_auth_header_value: "b",
      },
      {
        webhook_url: "https://example.com/h",
        webhook_auth_header_name: "Webhook-Signature",
        webhook_auth_header_value: "b",
      },
      {
        webhook_url: "https://example.com/h",
        webhook_auth_header_name: "Transfer-Encoding",
        webhook_auth_header_value: "b",
      },
      {
        webhook_url: "https://example.com/h",
        webhook_auth_header_name: "X-A",
        webhook_auth_header_value: "b\r\nHost: x",
      },
      {
        webhook_url: "https://example.com/h",
        webhook_auth_header_name: "X-A",
        webhook_auth_header_value: "b".repeat(1025),
      },
    ]) {
      expect(checkWebhookFields(fields, none).ok, JSON.stringify(fields).slice(0, 120)).toBe(false);
    }
  });
});
