import { z } from "@hono/zod-openapi";
import { TaskStatus } from "../../protocol/task.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";

export const QueueStats = z
  .strictObject({
    queued: z.number().int().openapi({ description: "jobs waiting for a worker slot, whole deployment" }),
    processing: z.number().int().openapi({ description: "jobs decoding now; capped at the concurrency" }),
    position: z.number().int().nullable().optional().openapi({
      description: "1-based place of this job in the queue; null when no longer waiting",
    }),
    concurrency: z.number().int().openapi({ description: "MAX_CONCURRENT_TRANSCRIBE_JOBS" }),
  })
  .meta({ id: "QueueStats" });

export const TaskAccepted = z
  .object({ task_id: z.string(), status: z.literal("queued") })
  .meta({ id: "TaskAccepted" });
export type TaskAccepted = z.infer<typeof TaskAccepted>;

export const TaskStatusResponse = z
  .object({
    task_id: z.string(),
    status: TaskStatus,
    result: TranscriptionResult.nullable().optional(),
    error: z.string().nullable().optional(),
    queue: QueueStats.nullable().optional(),
  })
  .meta({ id: "TaskStatusResponse" });
export type TaskStatusResponse = z.infer<typeof TaskStatusResponse>;

export const TaskIdParam = z.object({
  task_id: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "task_id", in: "path" }, example: "6f1c1c9e-5d1b-4c57-9a55-0b7f3c1e2d4a" }),
});
