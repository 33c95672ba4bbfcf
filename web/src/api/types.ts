/**
 * The wire types the console reads, taken from the API's own schemas (type-only imports: nothing of
 * zod reaches the browser bundle). One place, so a moved schema is fixed here alone.
 */
export type {
  FinalMessage,
  InterimMessage,
  ServerMessage as LiveServerMessage,
} from "../../../protocol/live.ts";
export type { Segment, TranscriptionResult } from "../../../protocol/transcription.ts";
export type { HealthResponse } from "../../../worker/schemas/discovery.ts";
export type { HistoryEntry, HistoryPage } from "../../../worker/schemas/history.ts";
export type { TaskAccepted, TaskStatusResponse } from "../../../worker/schemas/tasks.ts";
export type { PresignResponse } from "../../../worker/schemas/uploads.ts";

export type JobStatus = "queued" | "processing" | "done" | "failed";
