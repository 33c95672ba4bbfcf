import { z } from "zod";

/** Every asynchronous operation is a task of one of these kinds (one engine, several public views). */
export const TASK_KINDS = ["transcribe", "shorts", "quiz_video", "slide"] as const;
export const TaskKind = z.enum(TASK_KINDS);
export type TaskKind = z.infer<typeof TaskKind>;

/** The one internal life of a task; the speech-to-text API shows it as is (JobStatus). */
export const TASK_STATUSES = ["queued", "processing", "done", "failed"] as const;
export const TaskStatus = z.enum(TASK_STATUSES).meta({ id: "JobStatus" });
export type TaskStatus = z.infer<typeof TaskStatus>;

/** Interactive work (synchronous endpoints) is served ahead of batch work. */
export const LANES = ["interactive", "batch"] as const;
export const Lane = z.enum(LANES);
export type Lane = z.infer<typeof Lane>;

/** Where the node reads a task's media from. */
export const TaskSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("object"), object_key: z.string() }),
  z.object({ type: z.literal("url"), url: z.url() }),
  z.object({ type: z.literal("none") }),
]);
export type TaskSource = z.infer<typeof TaskSource>;

/**
 * A task as both stores keep it. Times are Unix milliseconds; `params` holds what the enqueue route
 * stored (for transcription: model_id, language, context, object_key, file_url).
 */
export const TaskRecord = z.object({
  task_id: z.string(),
  owner_key_id: z.string().nullable(),
  kind: TaskKind,
  lane: Lane,
  status: TaskStatus,
  params: z.record(z.string(), z.unknown()),
  source: TaskSource,
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
  progress: z.number().min(0).max(100),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type TaskRecord = z.infer<typeof TaskRecord>;

/** The Queue message: only the id and kind travel; the task itself lives in the stores. */
export const TaskMessage = z.object({ task_id: z.string(), kind: TaskKind });
export type TaskMessage = z.infer<typeof TaskMessage>;
