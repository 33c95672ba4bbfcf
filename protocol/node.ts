import { z } from "zod";
import { Lane, TaskKind, TaskSource } from "./task.ts";

/**
 * The internal protocol between the Worker and inference nodes (routes under /internal/v1, NODE_TOKEN
 * auth). Nodes pull: they long-poll for leases, heartbeat while they work and report the outcome.
 */

/** What a node says about itself on every lease and heartbeat call; /health and /models read it. */
export const NodeHealth = z.object({
  node_id: z.string().min(1).max(128),
  asr_loaded: z.boolean(),
  asr_model: z.string().default(""),
  models_ready: z.array(z.string()).default([]),
  gpu_free_gb: z.number().min(0).default(0),
  mt_loaded: z.boolean().default(false),
  mt_model: z.string().default(""),
  /** The directions the node's translation backend offers now, [from, to] as whisper codes. */
  mt_pairs: z
    .array(z.tuple([z.string().max(16), z.string().max(16)]))
    .max(10_000)
    .default([]),
});
export type NodeHealth = z.infer<typeof NodeHealth>;

export const LeaseRequest = z.strictObject({
  node: NodeHealth,
  /** How many tasks the node can take now. */
  capacity: z.number().int().min(1).max(64),
  /** How long to wait for work before answering with no lease. */
  wait_ms: z.number().int().min(0).max(30_000).default(25_000),
  kinds: z.array(TaskKind).min(1).default(["transcribe"]),
});
export type LeaseRequest = z.input<typeof LeaseRequest>;

export const Lease = z.object({
  lease_id: z.string(),
  task_id: z.string(),
  kind: TaskKind,
  lane: Lane,
  attempt: z.number().int().min(1),
  params: z.record(z.string(), z.unknown()),
  source: TaskSource,
  /** Path (relative to the Worker) that streams the task's stored media, for `object` sources. */
  source_path: z.string().nullable(),
  /** Unix ms; a heartbeat before it extends the lease, after it the task goes back to the queue. */
  expires_at: z.number().int(),
});
export type Lease = z.infer<typeof Lease>;

export const LeaseResponse = z.object({ leases: z.array(Lease) });
export type LeaseResponse = z.infer<typeof LeaseResponse>;

export const HeartbeatRequest = z.strictObject({
  node: NodeHealth,
  progress: z.number().min(0).max(100).default(0),
});
export type HeartbeatRequest = z.input<typeof HeartbeatRequest>;

export const HeartbeatResponse = z.object({
  expires_at: z.number().int(),
  /**
   * The task was cancelled (its synchronous caller went away): stop it and report nothing, the task
   * has already ended. The lease is released with this answer.
   */
  cancel: z.boolean().default(false),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

export const CompleteRequest = z.strictObject({ result: z.record(z.string(), z.unknown()) });
export type CompleteRequest = z.infer<typeof CompleteRequest>;

export const FailRequest = z.strictObject({
  error: z.string().min(1).max(4000),
  /** A retryable failure goes back to the queue (counting an attempt); otherwise the task fails now. */
  retryable: z.boolean().default(false),
});
export type FailRequest = z.input<typeof FailRequest>;

/** Error body of every internal route. */
export const InternalError = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
