import type { Lease, NodeHealth } from "../../protocol/node.ts";
import { call, NODE_TOKEN } from "./helpers.ts";

/**
 * A test-only inference node: speaks the internal protocol over the Worker's real routes, so the
 * task engine can be driven end to end before (and independently of) the real node.
 */
export class TestNode {
  constructor(
    readonly health: NodeHealth = {
      node_id: "test-node",
      asr_loaded: true,
      asr_model: "whisper-base",
      models_ready: ["whisper-base"],
      gpu_free_gb: 0,
      mt_loaded: false,
      mt_model: "",
      mt_pairs: [],
    },
  ) {}

  private post(path: string, body: unknown): Promise<Response> {
    return call(`/internal/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${NODE_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  async lease(capacity = 1, waitMs = 0): Promise<Lease[]> {
    const response = await this.post("/lease", { node: this.health, capacity, wait_ms: waitMs });
    if (response.status !== 200) throw new Error(`lease: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { leases: Lease[] }).leases;
  }

  heartbeat(leaseId: string, progress: number): Promise<Response> {
    return this.post(`/leases/${leaseId}/heartbeat`, { node: this.health, progress });
  }

  complete(leaseId: string, result: Record<string, unknown>): Promise<Response> {
    return this.post(`/leases/${leaseId}/complete`, { result });
  }

  fail(leaseId: string, error: string, retryable = false): Promise<Response> {
    return this.post(`/leases/${leaseId}/fail`, { error, retryable });
  }
}

/** A minimal valid transcription result. */
export function sampleResult(text = "xin chào"): Record<string, unknown> {
  return {
    text,
    raw_text: text,
    language: "Vietnamese",
    model: "whisper-base",
    duration_sec: 1.5,
    asr_ms: 120,
    rtf: 0.08,
    segments: [{ start: 0, end: 1.5, start_fmt: "00:00.000", end_fmt: "00:01.500", text, speaker: null }],
    segment_count: 1,
    has_timestamps: true,
  };
}
