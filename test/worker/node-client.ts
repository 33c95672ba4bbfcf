import type { Lease, NodeHealth } from "../../protocol/node.ts";
import type { TaskKind } from "../../protocol/task.ts";
import type { TaskFailureCode } from "../../protocol/task-failure.ts";
import type { TokenLogprob } from "../../protocol/transcription-detail.ts";
import { NODE_HEALTH } from "../helpers/node-health.ts";
import { call, NODE_TOKEN } from "./helpers.ts";

/**
 * A test-only inference node: speaks the internal protocol over the Worker's real routes, so the
 * task engine can be driven end to end before (and independently of) the real node.
 */
export class TestNode {
  readonly health: NodeHealth;

  /**
   * `health` overrides the default node's fields (e.g. `{ node_id: "b" }` for a second node); `token`
   * is the node token it calls with (the shared NODE_TOKEN unless a per-node one is given).
   */
  constructor(
    health: Partial<NodeHealth> = {},
    private readonly token = NODE_TOKEN,
  ) {
    this.health = { ...NODE_HEALTH, ...health };
  }

  /** GET on the internal API (a leased task's source or known-speaker clip). */
  get(path: string): Promise<Response> {
    return call(`/internal/v1${path}`, { headers: { authorization: `Bearer ${this.token}` } });
  }

  private post(path: string, body: unknown): Promise<Response> {
    return call(`/internal/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  async lease(capacity = 1, waitMs = 0, kinds: TaskKind[] = ["transcribe"]): Promise<Lease[]> {
    const response = await this.post("/lease", { node: this.health, capacity, wait_ms: waitMs, kinds });
    if (response.status !== 200) throw new Error(`lease: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { leases: Lease[] }).leases;
  }

  heartbeat(leaseId: string, progress: number, detail: { step?: string; estimated_time_sec?: number } = {}) {
    return this.post(`/leases/${leaseId}/heartbeat`, { node: this.health, progress, ...detail });
  }

  complete(
    leaseId: string,
    result: Record<string, unknown>,
    kind: TaskKind = "transcribe",
  ): Promise<Response> {
    return this.post(`/leases/${leaseId}/complete`, { kind, result });
  }

  /** Uploads an output file of a leased render, as a node does before completing. */
  uploadOutput(leaseId: string, name: string, bytes: Uint8Array, contentType: string): Promise<Response> {
    return call(`/internal/v1/leases/${leaseId}/outputs/${name}`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${this.token}`,
        "content-type": contentType,
        "content-length": String(bytes.byteLength),
      },
      body: bytes,
    });
  }

  /** What was decoded so far of a streaming task (one window). */
  partial(leaseId: string, seq: number, texts: string[], logprobs?: TokenLogprob[][]): Promise<Response> {
    const segments = texts.map((text, i) => ({
      start: seq * 30 + i,
      end: seq * 30 + i + 1,
      text,
      ...(logprobs?.[i] && { logprobs: logprobs[i] }),
    }));
    return this.post(`/leases/${leaseId}/partial`, { seq, segments });
  }

  fail(leaseId: string, code: TaskFailureCode, message: string): Promise<Response> {
    return this.post(`/leases/${leaseId}/fail`, { code, message });
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
