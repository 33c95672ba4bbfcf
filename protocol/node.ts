import { z } from "zod";
import {
  Lane,
  perKind,
  TASK_CONTRACTS,
  TASK_KINDS,
  type TaskContract,
  TaskKind,
  TaskSource,
} from "./task.ts";
import { TaskFailureCode } from "./task-failure.ts";
import { TokenLogprob } from "./transcription-detail.ts";

/**
 * The internal protocol between the Worker and inference nodes (routes under /internal/v1, node token
 * auth). Nodes pull: they long-poll for leases, heartbeat while they work and report the outcome.
 */

/** What a node says about itself on every lease and heartbeat call; /health and /models read it. */
export const NodeHealth = z.object({
  node_id: z.string().min(1).max(128),
  asr_loaded: z.boolean(),
  asr_model: z.string().default(""),
  /**
   * The loaded model file is a synthetic stand-in (random weights: transcripts are noise), so
   * /health, /models and the console can say so. Older nodes do not send it: false.
   */
  asr_synthetic: z.boolean().default(false),
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
  /** The task kinds this node runs; it is only offered those. */
  kinds: z.array(TaskKind).min(1).default(["transcribe"]),
});
export type LeaseRequest = z.input<typeof LeaseRequest>;
/** A checked lease request, as the Dispatcher takes it. */
export type LeaseAsk = z.output<typeof LeaseRequest>;

/** The longest audio a task may have unless the deployment sets MAX_AUDIO_DURATION_SEC: 4 hours. */
export const DEFAULT_MAX_AUDIO_DURATION_SEC = 14_400;

const leaseFields = {
  lease_id: z.string(),
  task_id: z.string(),
  lane: Lane,
  attempt: z.number().int().min(1),
  source: TaskSource,
  /** Path (relative to the Worker) that streams the task's stored media, for `object` sources. */
  source_path: z.string().nullable(),
  /** Unix ms; a heartbeat before it extends the lease, after it the task goes back to the queue. */
  expires_at: z.number().int(),
  /**
   * The deployment's MAX_AUDIO_DURATION_SEC, so every node enforces the same cap: longer media fails
   * with `audio_too_long` before it is decoded.
   */
  max_audio_duration_sec: z.number().int().positive(),
};

/** One kind's lease schema, with that kind's params. */
type LeaseVariant = {
  [K in TaskKind]: z.ZodObject<
    typeof leaseFields & { kind: z.ZodLiteral<K>; params: TaskContract<K>["params"] }
  >;
}[TaskKind];

function leaseOf(kind: TaskKind): LeaseVariant {
  const variant = z.object({ ...leaseFields, kind: z.literal(kind), params: TASK_CONTRACTS[kind].params });
  return variant as unknown as LeaseVariant;
}

/** A work order: the task's kind and its params, typed by that kind; one variant per kind of the table. */
export const Lease = z.discriminatedUnion("kind", perKind(TASK_KINDS, leaseOf));
export type Lease = z.infer<typeof Lease>;
export type LeaseOf<K extends TaskKind> = Extract<Lease, { kind: K }>;

export const LeaseResponse = z.object({ leases: z.array(Lease) });
export type LeaseResponse = z.infer<typeof LeaseResponse>;

/** What a node reports of one running task with each heartbeat. */
const progressFields = {
  progress: z.number().min(0).max(100).default(0),
  /** What the task is doing now (e.g. a content step such as `rendering_video`). */
  step: z.string().min(1).max(64).optional(),
  /** Seconds the node expects the task still needs. */
  estimated_time_sec: z.number().min(0).max(86_400).optional(),
};

/** One lease's heartbeat (`/leases/{id}/heartbeat`): kept for nodes older than the per-node heartbeat. */
export const HeartbeatRequest = z.strictObject({ node: NodeHealth, ...progressFields });
export type HeartbeatRequest = z.input<typeof HeartbeatRequest>;

/** The most segments one partial report carries (a window of speech holds a few dozen at most). */
export const MAX_PARTIAL_SEGMENTS = 64;
/** The most tokens of one partial segment (a segment of a 30 s window holds a few hundred at most). */
export const MAX_PARTIAL_SEGMENT_TOKENS = 1_000;

/**
 * What a node has decoded so far of a task asked to stream (`stream_partials`), one report per decoded
 * window (`POST /leases/{lease_id}/partial`): the window's cleaned segments, `seq` counting windows
 * from 0. The final result is the authority; a report lost on the way only costs the stream a delta.
 */
export const PartialTranscript = z.strictObject({
  seq: z.number().int().min(0).max(100_000),
  segments: z
    .array(
      z.strictObject({
        start: z.number().min(0),
        end: z.number().min(0),
        text: z.string().max(4_000),
        /** The segment's tokens, when the task asked for logprobs. */
        logprobs: z.array(TokenLogprob).max(MAX_PARTIAL_SEGMENT_TOKENS).optional(),
      }),
    )
    .max(MAX_PARTIAL_SEGMENTS),
});
export type PartialTranscript = z.infer<typeof PartialTranscript>;

/** The most leases one node heartbeat carries: a node's largest capacity. */
export const MAX_HEARTBEAT_LEASES = 64;

/**
 * The per-node heartbeat (`POST /heartbeat`): every lease the node holds, in one call per period, so the
 * scheduler hears from a node once however many tasks it runs.
 */
export const NodeHeartbeatRequest = z.strictObject({
  node: NodeHealth,
  leases: z
    .array(z.strictObject({ lease_id: z.string().min(1).max(128), ...progressFields }))
    .min(1)
    .max(MAX_HEARTBEAT_LEASES)
    .refine((leases) => new Set(leases.map((l) => l.lease_id)).size === leases.length, {
      message: "each lease_id may appear once",
    }),
});
export type NodeHeartbeatRequest = z.input<typeof NodeHeartbeatRequest>;

/**
 * Each lease's answer: `extended` until `expires_at`; `cancel`: the task was cancelled, stop it and
 * report nothing (the lease is released with this answer); `gone`: expired, released or not this
 * node's, stop the task.
 */
export const NodeHeartbeatResponse = z.object({
  leases: z.array(
    z.object({
      lease_id: z.string(),
      state: z.enum(["extended", "cancel", "gone"]),
      expires_at: z.number().int().nullable(),
    }),
  ),
});
export type NodeHeartbeatResponse = z.infer<typeof NodeHeartbeatResponse>;

export const HeartbeatResponse = z.object({
  expires_at: z.number().int(),
  /**
   * The task was cancelled (its synchronous caller went away): stop it and report nothing, the task
   * has already ended. The lease is released with this answer.
   */
  cancel: z.boolean().default(false),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

/** One kind's completion schema, with that kind's completion result. */
type CompletionVariant = {
  [K in TaskKind]: z.ZodObject<
    { kind: z.ZodLiteral<K>; result: TaskContract<K>["completion"] },
    z.core.$strict
  >;
}[TaskKind];

function completionOf(kind: TaskKind): CompletionVariant {
  const variant = z.strictObject({ kind: z.literal(kind), result: TASK_CONTRACTS[kind].completion });
  return variant as unknown as CompletionVariant;
}

/** A finished task's outcome; `kind` must be the lease's. One variant per kind of the table. */
export const CompleteRequest = z.discriminatedUnion("kind", perKind(TASK_KINDS, completionOf));
export type CompleteRequest = z.infer<typeof CompleteRequest>;

export const FailRequest = z.strictObject({
  /** Why, as a code: it decides whether the task is retried and what each API shows. */
  code: TaskFailureCode,
  /** The human explanation stored with the task. */
  message: z.string().min(1).max(4000),
});
export type FailRequest = z.infer<typeof FailRequest>;

/**
 * GET /internal/v1/whoami: the node identity the caller's token names (`shared` for the shared
 * NODE_TOKEN). A node asks once at start, so its own log lines carry its name.
 */
export const NodeWhoami = z.object({ id: z.string().min(1), name: z.string().min(1) });
export type NodeWhoami = z.infer<typeof NodeWhoami>;
