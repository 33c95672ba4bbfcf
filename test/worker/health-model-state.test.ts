import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { app } from "../../worker/app.ts";
import type { HealthResponse } from "../../worker/schemas/discovery.ts";
import { createKey, resetDispatcher } from "./helpers.ts";
import { connectClient, FakeNode, health, waitForHealth } from "./live-helpers.ts";
import { TestNode } from "./node-client.ts";

/**
 * /health tells what is served, not what is configured: `asr_model` is a model someone serves,
 * `asr_loaded` is true exactly when /ws can get a streaming engine, and `gpu_free_gb` is what the
 * nodes report. Real Worker, Dispatcher and LiveHub; the nodes speak the internal protocol.
 */

let key: string;
let engine: FakeNode | null = null;

beforeAll(async () => {
  key = (await createKey("health-model-state")).key;
});
beforeEach(resetDispatcher);
afterEach(async () => {
  const connected = engine;
  engine = null;
  await connected?.disconnect();
});

async function fullHealth(target: Env = env): Promise<HealthResponse> {
  const response = await app.fetch(
    new Request("http://voxedge.test/health"),
    target,
    createExecutionContext(),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as HealthResponse;
}

/** Opens /ws and says whether it got `ready` or was refused (error, then close 1013). */
async function openWs(): Promise<"ready" | { refused: string; code: number }> {
  const client = await connectClient(key);
  const first = await client.json<{ type: string; message?: string }>();
  if (first.type === "ready") {
    client.ws.close(1000, "done");
    return "ready";
  }
  const closed = await client.closeWithin();
  return { refused: first.message ?? "", code: closed.code };
}

describe("asr_loaded is false exactly when /ws is refused for want of an engine", () => {
  it("a batch node alone (no live engine): asr_loaded false, and /ws is refused", async () => {
    await new TestNode({ node_id: "batch-only" }).lease(1, 0);
    expect(await fullHealth()).toMatchObject({ asr_loaded: false, asr_model: "whisper-base" });
    expect(await openWs()).toEqual({ refused: expect.stringMatching(/no streaming engine/), code: 1013 });
  });

  it("a live engine connected: asr_loaded true, and /ws gets ready", async () => {
    engine = await FakeNode.connect("engine-1", 1);
    expect(await fullHealth()).toMatchObject({ asr_loaded: true, busy: false });
    const opened = openWs();
    await engine.acceptAssignment();
    expect(await opened).toBe("ready");
    await waitForHealth((h) => !h.busy);
  });

  it("the engine gone: asr_loaded false again, and /ws is refused", async () => {
    engine = await FakeNode.connect("engine-2", 1);
    await engine.disconnect();
    engine = null;
    expect((await health()).asr_loaded).toBe(false);
    expect(await openWs()).toMatchObject({ code: 1013 });
  });
});

describe("asr_model names a model that is served", () => {
  it("nodes serving another model than the registry default: that model, not the default", async () => {
    await new TestNode({
      node_id: "small",
      asr_model: "whisper-small",
      models_ready: ["whisper-small"],
    }).lease(1, 0);
    engine = await FakeNode.connect("engine-small", 1, "whisper-small");
    expect(await fullHealth()).toMatchObject({ asr_model: "whisper-small", asr_loaded: true });
  });

  it("the default when some node serves it, whatever else others serve", async () => {
    await new TestNode({
      node_id: "small",
      asr_model: "whisper-small",
      models_ready: ["whisper-small"],
    }).lease(1, 0);
    await new TestNode({ node_id: "base" }).lease(1, 0);
    expect((await fullHealth()).asr_model).toBe("whisper-base");
  });

  it("a synthetic stand-in is named for the model it stands in for", async () => {
    await new TestNode({
      node_id: "small-synthetic",
      asr_model: "whisper-small",
      models_ready: ["whisper-small"],
      asr_synthetic: true,
    }).lease(1, 0);
    expect(await fullHealth()).toMatchObject({ asr_model: "whisper-small", asr_synthetic: true });
  });

  it("the remote tier's id when the default is an http entry with an endpoint", async () => {
    const registry = {
      default_model: "remote-large",
      models: [
        { id: "remote-large", label: "Remote large", kind: "http", endpoint: "https://asr.example/v1" },
        { id: "whisper-base", label: "Whisper base", kind: "local_base", file: "ggml-base.bin" },
      ],
    };
    const remote = { ...env, MODEL_REGISTRY: JSON.stringify(registry) } as Env;
    await new TestNode({ node_id: "base" }).lease(1, 0);
    expect((await fullHealth(remote)).asr_model).toBe("remote-large");
  });

  it("nothing serving: the registry default, not loaded", async () => {
    expect(await fullHealth()).toMatchObject({
      asr_model: "whisper-base",
      asr_loaded: false,
      gpu_free_gb: 0,
    });
  });
});

describe("gpu_free_gb is what the nodes report", () => {
  it("the most free VRAM any node reports; 0 from CPU nodes", async () => {
    await new TestNode({ node_id: "cpu", gpu_free_gb: 0 }).lease(1, 0);
    expect((await fullHealth()).gpu_free_gb).toBe(0);
    await new TestNode({ node_id: "gpu-a", gpu_free_gb: 3.25 }).lease(1, 0);
    await new TestNode({ node_id: "gpu-b", gpu_free_gb: 71.5 }).lease(1, 0);
    expect((await fullHealth()).gpu_free_gb).toBe(71.5);
  });

  it("a node's later report (lease poll or heartbeat) replaces its earlier figure", async () => {
    const node = new TestNode({ node_id: "gpu-a", gpu_free_gb: 40 });
    await node.lease(1, 0);
    expect((await fullHealth()).gpu_free_gb).toBe(40);
    node.health.gpu_free_gb = 12.75;
    await node.lease(1, 0);
    expect((await fullHealth()).gpu_free_gb).toBe(12.75);
  });
});
