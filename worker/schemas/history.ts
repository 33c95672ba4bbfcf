import { z } from "@hono/zod-openapi";
import { TaskStatus } from "../../protocol/task.ts";
import { TaskFailureCode } from "../../protocol/task-failure.ts";
import { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import { PageQuery } from "./common.ts";

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

export const HistoryQuery = PageQuery.extend({
  status: TaskStatus.optional().openapi({ param: { name: "status", in: "query" } }),
});
