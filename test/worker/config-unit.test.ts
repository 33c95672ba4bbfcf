import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ConfigError, workerConfig } from "../../platform/config.ts";
import { app } from "../../worker/app.ts";

/** The Worker's configuration is parsed once, with one schema, and a bad value is named. */

describe("workerConfig", () => {
  it("parses wrangler.toml's vars into typed settings", () => {
    const config = workerConfig(env);
    expect(config).toMatchObject({
      jobTtlMs: 86_400_000,
      maxTaskAttempts: 3,
      leaseTtlMs: 60_000,
      presignTtlSec: 3600,
      publicBaseUrl: null,
      syncWaitMaxSec: 540,
      r2S3: null,
    });
    expect(config.modelRegistry.default_model).toBeTruthy();
    expect(workerConfig(env)).toBe(config);
  });

  it("names every variable with a bad value", () => {
    const bad = { ...env, MAX_TASK_ATTEMPTS: "three", PUBLIC_BASE_URL: "ftp://x", LEASE_TTL_SEC: "0" };
    const error = (() => {
      try {
        workerConfig(bad);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    for (const name of ["MAX_TASK_ATTEMPTS", "PUBLIC_BASE_URL", "LEASE_TTL_SEC"]) {
      expect(String(error)).toContain(name);
    }
  });

  it("accepts Dispatcher partitions under a numeric transcription cap (the pool's root leases it)", () => {
    const partitioned = { ...env, DISPATCHER_PARTITIONS: "4" };
    const numeric = workerConfig({ ...partitioned, MAX_CONCURRENT_TRANSCRIBE_JOBS: "2" });
    expect(numeric).toMatchObject({ dispatcherPartitions: 4, maxConcurrentTranscribeJobs: 2 });
    const config = workerConfig({ ...partitioned, MAX_CONCURRENT_TRANSCRIBE_JOBS: "auto" });
    expect(config.dispatcherPartitions).toBe(4);
    expect(workerConfig(env).dispatcherPartitions).toBe(1);
  });

  it("refuses a model registry that names a default it does not hold", () => {
    const registry = JSON.stringify({ default_model: "nope", models: [] });
    expect(() => workerConfig({ ...env, MODEL_REGISTRY: registry })).toThrow(/MODEL_REGISTRY/);
  });

  it("answers 503 without leaking the setting when a request meets a bad value", async () => {
    const ctx = createExecutionContext();
    const response = await app.fetch(
      new Request("http://voxedge.test/models"),
      { ...env, MODEL_REGISTRY: "{not json" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      detail: "the service is misconfigured",
      code: "service_unavailable",
    });
  });
});
