/**
 * The wire types the console reads, taken from the API's own schemas (type-only imports: nothing of
 * zod reaches the browser bundle). One place, so a moved schema is fixed here alone.
 */
import type { z } from "zod";
import type { SessionCreateResponse } from "../../../protocol/rooms.ts";
import type { SocketTokenResponse } from "../../../worker/schemas/auth.ts";
import type { BackgroundList, TemplateList, VoiceList } from "../../../worker/schemas/content.ts";
import type { LanguagesResponse as LanguagesSchema } from "../../../worker/schemas/translation.ts";

export type {
  FinalMessage,
  InterimMessage,
  ServerMessage as LiveServerMessage,
} from "../../../protocol/live.ts";
export type {
  HostControl,
  HostControlResult,
  RoomServerMessage,
  RoomTranscript,
  SessionDetails,
  SingleServerMessage,
  SingleTranscript,
} from "../../../protocol/rooms.ts";
export type { Segment, TranscriptionResult } from "../../../protocol/transcription.ts";
export type {
  ContentFileLink,
  CreateAccepted,
  SuccessData,
  TaskResultResponse as ContentTaskResult,
} from "../../../worker/schemas/content.ts";
export type { HealthResponse, ModelsResponse } from "../../../worker/schemas/discovery.ts";
export type { HistoryEntry, HistoryPage } from "../../../worker/schemas/history.ts";
export type {
  CommunityNote,
  CommunityNotePage,
  Note,
  NotePage,
  NoteSummary,
} from "../../../worker/schemas/notes.ts";
export type { TaskAccepted, TaskStatusResponse } from "../../../worker/schemas/tasks.ts";
export type { PresignResponse } from "../../../worker/schemas/uploads.ts";

export type JobStatus = "queued" | "processing" | "done" | "failed";

/** GET /api/v1/languages */
export type LanguagesResponse = z.infer<typeof LanguagesSchema>;
/** POST /api/v1/session/create */
export type SessionCreated = z.infer<typeof SessionCreateResponse>;
/** POST /v1/auth/tokens */
export type SocketToken = z.infer<typeof SocketTokenResponse>;
export type Voice = z.infer<typeof VoiceList>["voices"][number];
export type Background = z.infer<typeof BackgroundList>["backgrounds"][number];
export type Template = z.infer<typeof TemplateList>["templates"][number];
export type { Speaker, SpeakerList } from "../../../worker/schemas/speakers.ts";
