import { z } from "@hono/zod-openapi";
import { TaskStatus } from "../../protocol/task.ts";
import { TaskFailureCode } from "../../protocol/task-failure.ts";
import { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";

export const HistoryEntry = z
  .object({
    task_id: z.string(),
    status: TaskStatus,
    created_at: z.number().nullable().optional().openapi({ description: "Unix seconds of creation" }),
    updated_at: z
      .number()
      .nullable()
      .optional()
      .openapi({ description: "Unix seconds of last status change" }),
    params: TranscribeParams.nullable().optional(),
    result: TranscriptionResult.nullable().optional(),
    error: z.string().nullable().optional(),
    error_code: TaskFailureCode.nullable().optional(),
  })
  .meta({ id: "HistoryEntry" });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const HistoryPage = z
  .object({
    jobs: z.array(HistoryEntry),
    total: z.number().int(),
    limit: z.number().int(),
    skip: z.number().int(),
  })
  .meta({ id: "HistoryPage" });
export type HistoryPage = z.infer<typeof HistoryPage>;

/** limit is clamped to 1..100 (not rejected), skip must be at least 0. */
export const HistoryQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .default(20)
    .transform((n) => Math.min(100, Math.max(1, n)))
    .openapi({ param: { name: "limit", in: "query" }, type: "integer", example: 20 }),
  skip: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .openapi({ param: { name: "skip", in: "query" }, type: "integer", example: 0 }),
  status: TaskStatus.optional().openapi({ param: { name: "status", in: "query" } }),
});
