import { z } from "@hono/zod-openapi";
import { TaskStatus } from "../../protocol/task.ts";
import { TaskFailureCode } from "../../protocol/task-failure.ts";
import { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { TranscriptionResult } from "../../protocol/transcription.ts";
import { decodeCursor } from "../tasks/history-cursor.ts";
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
    next_cursor: z.string().nullable().openapi({
      description:
        "Pass as `cursor` for the page after this one (an addition to the spec's `skip`); null on the last page",
    }),
  })
  .meta({ id: "HistoryPage" });
export type HistoryPage = z.infer<typeof HistoryPage>;

export const HistoryQuery = PageQuery.extend({
  status: TaskStatus.optional().openapi({ param: { name: "status", in: "query" } }),
  cursor: z
    .string()
    .max(128)
    .optional()
    .refine(
      (cursor) => cursor === undefined || decodeCursor(cursor) !== null,
      "not a cursor a history page returned",
    )
    .openapi({
      param: { name: "cursor", in: "query" },
      description: "A page's `next_cursor`: the page after it (`skip` then counts from there)",
    }),
});
