import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { LeaseLoop, TaskCancelledError } from "../../inference-node/lease-loop.ts";
import { NodeHeartbeat } from "../../inference-node/node-heartbeat.ts";
import { transcribe } from "../../inference-node/pipeline/transcribe-task.ts";
import { EnergyVoiceActivity } from "../../inference-node/vad/voice-activity.ts";
import type { WorkerClient } from "../../inference-node/worker-client.ts";
import { loadModel, type WhisperModel } from "../../native/index.ts";
import { ensureSyntheticModel } from "../../native/model/synthetic.ts";
import { defaultRegistry } from "../../protocol/model-registry.ts";
import type {
  CompleteRequest,
  FailRequest,
  HeartbeatResponse,
  Lease,
  LeaseOf,
  NodeHealth,
  NodeHeartbeatRequest,
} from "../../protocol/node.ts";
import { pcmWavHeader } from "../../protocol/wav.ts";
import { idleLeasePoll } from "../helpers/idle-lease-poll.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";
import { repeatTo, speechPcm } from "../native/audio.ts";

/** The node's half of cancellation: a heartbeat answered `cancel: true` stops the task silently. */

const health = NODE_HEALTH;

const lease: Lease = {
  lease_id: "lease-1",
  task_id: "task-1",
  kind: "transcribe",
  lane: "interactive",
  attempt: 1,
  params: {
    model_id: "local_base",
    language: null,
    context: "",
    task: "transcribe",
    word_timestamps: false,
    object_key: null,
    file_url: null,
  },
  source: { type: "none" },
  source_path: null,
  expires_at: Date.now() + 60_000,
  max_audio_duration_sec: 14_400,
};

/** A WorkerClient stand-in: one lease, then none; records what the node reports. */
function fakeClient(
  heartbeat: () => HeartbeatResponse,
  options: { lease?: Lease; media?: () => Response } = {},
) {
  const calls = { heartbeats: 0, completes: 0, fails: [] as string[] };
  let handedOut = false;
  const client = {
    lease: async (_n: NodeHealth, _c: number, _k: unknown, waitMs: number, signal?: AbortSignal) => {
      if (!handedOut) {
        handedOut = true;
        return [options.lease ?? lease];
      }
      return idleLeasePoll(waitMs, signal);
    },
    heartbeatNode: async (body: NodeHeartbeatRequest) => {
      calls.heartbeats++;
      const answer = heartbeat();
      return body.leases.map((l) => ({
        lease_id: l.lease_id,
        state: answer.cancel ? "cancel" : "extended",
        expires_at: answer.expires_at,
      }));
    },
    complete: async () => {
      calls.completes++;
    },
    fail: async (_id: string, failure: FailRequest) => {
      calls.fails.push(`${failure.code}: ${failure.message}`);
    },
    source: async () => options.media?.() ?? new Response(null, { status: 404 }),
  };
  return { client: client as unknown as WorkerClient, calls };
}

/** A task that runs until its signal aborts, like a long decode. */
function blockingRun(seen: { reason?: unknown; aborted: Promise<void> }) {
  let markAborted: () => void = () => undefined;
  seen.aborted = new Promise((resolve) => {
    markAborted = resolve;
  });
  return (_lease: Lease, context: { signal: AbortSignal }) =>
    new Promise<CompleteRequest>((_resolve, reject) => {
      context.signal.addEventListener("abort", () => {
        seen.reason = context.signal.reason;
        markAborted();
        reject(new Error("The decode was aborted"));
      });
    });
}

function loopWith(client: WorkerClient, run: ReturnType<typeof blockingRun>) {
  return new LeaseLoop({
    client,
    health: () => health,
    run,
    kinds: ["transcribe"],
    concurrency: 1,
    heartbeat: new NodeHeartbeat(client, () => health, 20, pino({ level: "silent" })),
    stallMs: 60_000,
    logger: pino({ level: "silent" }),
    pollWaitMs: 50,
  });
}

describe("LeaseLoop and a cancelled task", () => {
  it("aborts the task when a heartbeat says cancel, and reports no failure", async () => {
    const { client, calls } = fakeClient(() => ({
      expires_at: Date.now() + 60_000,
      cancel: calls.heartbeats >= 2,
    }));
    const seen = { aborted: Promise.resolve() } as { reason?: unknown; aborted: Promise<void> };
    const loop = loopWith(client, blockingRun(seen));
    loop.start();
    await Promise.race([seen.aborted, new Promise((r) => setTimeout(r, 5_000))]);
    expect(seen.reason).toBeInstanceOf(TaskCancelledError);
    for (let i = 0; i < 50 && loop.activeTasks > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(loop.activeTasks).toBe(0);
    expect(calls.fails).toEqual([]);
    expect(calls.completes).toBe(0);
    await loop.drain(100);
  });

  it("keeps running while heartbeats do not say cancel", async () => {
    const { client, calls } = fakeClient(() => ({ expires_at: Date.now() + 60_000, cancel: false }));
    const seen = { aborted: Promise.resolve() } as { reason?: unknown; aborted: Promise<void> };
    const loop = loopWith(client, blockingRun(seen));
    loop.start();
    for (let i = 0; i < 100 && calls.heartbeats < 4; i++) await new Promise((r) => setTimeout(r, 10));
    expect(calls.heartbeats).toBeGreaterThanOrEqual(4);
    expect(seen.reason).toBeUndefined();
    expect(loop.activeTasks).toBe(1);
    await loop.drain(10);
    // Handed back on shutdown: that one is reported, as a retryable failure.
    expect(calls.fails).toEqual(["node_shutdown: inference node shut down; task handed back"]);
  });
});

/** 16-bit PCM WAV bytes of 16 kHz mono samples. */
function wavBytes(samples: Float32Array): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    data.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round((samples[i] ?? 0) * 32767))), i * 2);
  }
  const header = pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, data.length);
  return Buffer.concat([header, data]);
}

describe("a cancelled task on the real pipeline", () => {
  let whisper: WhisperModel | null = null;
  afterAll(async () => {
    await whisper?.dispose();
  });

  it("stops the native decode of a long file at the heartbeat that says cancel", async () => {
    whisper = await loadModel(await ensureSyntheticModel("micro"), { threads: 1 });
    const wav = wavBytes(repeatTo(await speechPcm("Cancel me while I am being decoded."), 20 * 60));
    const stored: Lease = {
      ...lease,
      params: { ...lease.params, language: "en" },
      source: { type: "object", object_key: "k" },
      source_path: "/src",
    };
    let progress = 0;
    let cancelledAt = 0;
    const { client, calls } = fakeClient(
      () => {
        // Cancel once decoding is under way (the node reports progress with each window).
        if (progress > 0 && !cancelledAt) cancelledAt = Date.now();
        return { expires_at: Date.now() + 60_000, cancel: cancelledAt > 0 };
      },
      { lease: stored, media: () => new Response(wav) },
    );
    const entry = defaultRegistry.models[0]!;
    const deps = {
      model: { id: entry.id, entry, path: "synthetic", synthetic: true, takesFileJobs: true, whisper },
      translator: null,
      diarize: false,
      vad: new EnergyVoiceActivity(),
      skipNonSpeechSec: 0,
      maxTokens: 16,
      temperatureInc: 0,
      media: { client, maxBytes: 2 * 1024 ** 3, downloadMaxMs: 60_000, allowlist: new Set<string>() },
      logger: pino({ level: "silent" }),
    };
    let ended = 0;
    let outcome: unknown = null;
    const loop = new LeaseLoop({
      client,
      health: () => health,
      run: (leased, context) =>
        transcribe(leased as LeaseOf<"transcribe">, deps, {
          ...context,
          progress: (percent) => {
            progress = percent;
            context.progress(percent);
          },
        }).then(
          (result) => {
            ended = Date.now();
            outcome = result;
            return { kind: "transcribe" as const, result };
          },
          (error: unknown) => {
            ended = Date.now();
            outcome = error;
            throw error;
          },
        ),
      kinds: ["transcribe"],
      concurrency: 1,
      heartbeat: new NodeHeartbeat(client, () => health, 50, pino({ level: "silent" })),
      stallMs: 60_000,
      logger: pino({ level: "silent" }),
      pollWaitMs: 50,
    });
    loop.start();
    for (let i = 0; i < 1200 && !ended; i++) await new Promise((r) => setTimeout(r, 50));
    expect(cancelledAt).toBeGreaterThan(0);
    expect(ended - cancelledAt).toBeLessThan(3_000);
    expect((outcome as Error).name).toBe("AbortError");
    expect(progress).toBeLessThan(90);
    // The native decode itself stopped, not only the promise.
    for (let i = 0; i < 100 && whisper.pending > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(whisper.pending).toBe(0);
    expect(calls.completes).toBe(0);
    expect(calls.fails).toEqual([]);
    await loop.drain(100);
  }, 120_000);
});
