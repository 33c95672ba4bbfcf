import { z } from "@hono/zod-openapi";
import { QueueStats, TaskStatus } from "../../protocol/task.ts";
import { TaskFailureCode } from "../../protocol/task-failure.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";

/** What a task view shows of its webhook; both absent when the task has none. */
export const webhookStateFields = {
  webhook_status: z.enum(["pending", "delivered", "failed"]).optional().openapi({
    description: "the task's webhook: pending until delivered (2xx) or given up (docs/api.md Webhooks)",
  }),
  webhook_last_http_status: z.number().int().nullable().optional().openapi({
    description: "HTTP status of the last delivery attempt (null: none yet, or no answer)",
  }),
};

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
    error_code: TaskFailureCode.nullable().optional().openapi({
      description: "why the task failed, as a stable code (set with error); docs/api.md lists them",
    }),
    queue: QueueStats.nullable().optional(),
    progress: z.number().min(0).max(100).optional().openapi({
      description: "0..100 as the node last reported it (never goes back); 100 once done",
    }),
    ...webhookStateFields,
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
