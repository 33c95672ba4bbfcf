import { createVoxedgeClient, unwrap } from "../../../client/index.ts";
import { apiKey } from "../auth/key-store.ts";
import type {
  Background,
  CommunityNotePage,
  ContentTaskResult,
  CreateAccepted,
  HealthResponse,
  HistoryPage,
  HostControl,
  HostControlResult,
  JobStatus,
  LanguagesResponse,
  ModelsResponse,
  Note,
  NotePage,
  PresignResponse,
  SessionCreated,
  SessionDetails,
  SocketToken,
  Speaker,
  SpeakerList,
  TaskAccepted,
  TaskStatusResponse,
  Template,
  Voice,
} from "./types.ts";

/**
 * The typed client (client/) on this origin with the signed-in key (none on a keyless page). Every
 * call resolves the route's body and rejects a VoxedgeApiError (status 0: the server was not reached).
 */
const voxedge = createVoxedgeClient({ baseUrl: location.origin, apiKey: () => apiKey.value });

/** Options every enqueue call takes (speech-to-text spec); empty ones are left out. */
export interface TranscribeOptions {
  language: string;
  context: string;
}

function enqueueFields(options: TranscribeOptions): { language?: string; context?: string } {
  return {
    language: options.language && options.language !== "auto" ? options.language : undefined,
    context: options.context.trim() || undefined,
  };
}

/** The speech-to-text API as the console uses it. */
export const api = {
  health: (): Promise<HealthResponse> => unwrap(voxedge.GET("/health")),
  models: (): Promise<ModelsResponse> => unwrap(voxedge.GET("/models")),
  history: (
    query: { limit: number; skip: number; status?: JobStatus },
    signal?: AbortSignal,
  ): Promise<HistoryPage> => unwrap(voxedge.GET("/history", { params: { query }, signal })),
  task: (taskId: string, signal?: AbortSignal): Promise<TaskStatusResponse> =>
    unwrap(voxedge.GET("/transcribe/{task_id}", { params: { path: { task_id: taskId } }, signal })),
  presign: (filename: string, contentType: string): Promise<PresignResponse> =>
    unwrap(voxedge.POST("/uploads/presign", { body: { filename, content_type: contentType } })),
  transcribeObject: (objectKey: string, options: TranscribeOptions): Promise<TaskAccepted> =>
    unwrap(
      voxedge.POST("/transcribe/object", { body: { object_key: objectKey, ...enqueueFields(options) } }),
    ),
  transcribeUrl: (fileUrl: string, options: TranscribeOptions): Promise<TaskAccepted> =>
    unwrap(voxedge.POST("/transcribe", { body: { file_url: fileUrl, ...enqueueFields(options) } })),
  /** Cancels the job if it is still running and deletes it with its audio and transcript (204). */
  deleteJob: async (taskId: string): Promise<void> => {
    await voxedge.DELETE("/transcribe/{task_id}", { params: { path: { task_id: taskId } } });
  },
  /** Checks a key before the console keeps it: the cheapest authenticated call, with that key. */
  checkKey: (key: string): Promise<HistoryPage> =>
    unwrap(
      voxedge.GET("/history", {
        params: { query: { limit: 1 } },
        headers: { authorization: `Bearer ${key}` },
      }),
    ),
};

/**
 * Socket tokens: a browser's WebSocket cannot send headers, so the console opens /ws and
 * /api/v1/ws/single with a short-lived token in the URL instead of the API key itself.
 */
export const authApi = {
  socketToken: (scope: "live" | "translate"): Promise<SocketToken> =>
    unwrap(voxedge.POST("/v1/auth/tokens", { body: { scope } })),
};

/** The content kinds the studio creates, by their create path (POST /v2/create/{form}). */
export type ContentForm =
  | "shorts"
  | "quiz-video"
  | "slide"
  | "flashcards"
  | "mindmap"
  | "quiz"
  | "study-guide"
  | "podcast"
  | "video-overview"
  | "translation";

/** Real-time translation (/api/v1): languages and rooms. The language list and a room's details need no key. */
export const translationApi = {
  // openapi-fetch's answer types widen tuples to arrays; the route's schema sends [code, name] pairs.
  languages: (signal?: AbortSignal): Promise<LanguagesResponse> =>
    unwrap(voxedge.GET("/api/v1/languages", { signal })) as Promise<LanguagesResponse>,
  createSession: (language: string, translateLanguage: string): Promise<SessionCreated> =>
    unwrap(
      voxedge.POST("/api/v1/session/create", { body: { language, translate_language: translateLanguage } }),
    ),
  /** A room's transcript file (its creator's key only): the body as text, whatever the format. */
  transcript: (
    conversationId: string,
    query: { format: "json" | "txt" | "srt" | "vtt"; language?: string; bilingual?: "true" | "false" },
  ): Promise<string> =>
    unwrap(
      voxedge.GET("/api/v1/session/{conversation_id}/transcript", {
        params: { path: { conversation_id: conversationId }, query },
        parseAs: "text",
      }),
    ) as Promise<string>,
  transcriptNote: (conversationId: string, body: { language?: string; title?: string }): Promise<Note> =>
    unwrap(
      voxedge.POST("/api/v1/session/{conversation_id}/transcript/note", {
        params: { path: { conversation_id: conversationId } },
        body,
      }),
    ),
  /** A host action on a room, with its host token (POST /api/v1/session/{id}/control): the room after it. */
  control: (conversationId: string, hostToken: string, action: HostControl): Promise<HostControlResult> =>
    unwrap(
      voxedge.POST("/api/v1/session/{conversation_id}/control", {
        params: { path: { conversation_id: conversationId }, header: { "x-host-token": hostToken } },
        body: action,
      }),
    ),
  session: (conversationId: string, signal?: AbortSignal): Promise<SessionDetails> =>
    unwrap(
      voxedge.GET("/api/v1/session/{conversation_id}", {
        params: { path: { conversation_id: conversationId } },
        signal,
      }),
    ),
};

/** The create forms are application/x-www-form-urlencoded (the spec's); openapi-fetch encodes the fields. */
const FORM_ENCODED = { "content-type": "application/x-www-form-urlencoded" };

/** Content generation: notes, the catalogs, the create forms and task polling. */
export const contentApi = {
  notes: (query: { limit: number; skip: number }, signal?: AbortSignal): Promise<NotePage> =>
    unwrap(voxedge.GET("/v1/notes", { params: { query }, signal })),
  note: (noteId: string): Promise<Note> =>
    unwrap(voxedge.GET("/v1/notes/{note_id}", { params: { path: { note_id: noteId } } })),
  createNote: (
    body: { title?: string; content: string; language?: string } | { transcription_task_id: string },
  ): Promise<Note> => unwrap(voxedge.POST("/v1/notes", { body })),
  deleteNote: async (noteId: string): Promise<void> => {
    await voxedge.DELETE("/v1/notes/{note_id}", { params: { path: { note_id: noteId } } });
  },
  publishNote: (noteId: string): Promise<Note> =>
    unwrap(voxedge.POST("/v1/notes/{note_id}/publish", { params: { path: { note_id: noteId } }, body: {} })),
  unpublishNote: (noteId: string): Promise<Note> =>
    unwrap(voxedge.POST("/v1/notes/{note_id}/unpublish", { params: { path: { note_id: noteId } } })),
  communityNotes: (query: { limit: number; skip: number }): Promise<CommunityNotePage> =>
    unwrap(voxedge.GET("/v1/community/notes", { params: { query } })),
  voices: (): Promise<{ voices: Voice[] }> => unwrap(voxedge.GET("/v1/voices")),
  backgrounds: (): Promise<{ backgrounds: Background[] }> => unwrap(voxedge.GET("/v1/backgrounds")),
  templates: (): Promise<{ templates: Template[] }> => unwrap(voxedge.GET("/v1/templates")),
  create: (form: ContentForm, fields: Record<string, string>): Promise<CreateAccepted> =>
    // Every create route answers the same CreateAccepted, so one path stands for the type; the fields
    // are the studio's kind table's, and the route validates them (each form's schema differs).
    unwrap(
      voxedge.POST(`/v2/create/${form}` as "/v2/create/shorts", {
        body: fields as never,
        headers: FORM_ENCODED,
      }),
    ),
  task: (taskId: string, signal?: AbortSignal): Promise<ContentTaskResult> =>
    unwrap(
      voxedge.GET("/v1/create/tasks/{task_id}/result", { params: { path: { task_id: taskId } }, signal }),
    ),
  /** Cancels the task if it is still running and deletes it with its outputs (204). */
  deleteTask: async (taskId: string): Promise<void> => {
    await voxedge.DELETE("/v1/create/tasks/{task_id}", { params: { path: { task_id: taskId } } });
  },
};

/** The file as a data URL (`data:audio/…;base64,…`), what POST /v1/speakers takes as `reference`. */
function dataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** Enrolled speakers (/v1/speakers): the voices async jobs name their speakers after. */
export const speakersApi = {
  list: (): Promise<SpeakerList> => unwrap(voxedge.GET("/v1/speakers")),
  enrol: async (name: string, file: File): Promise<Speaker> => {
    // a recording of a type the browser leaves blank still reads as audio to the API (it sniffs the bytes)
    const reference = (await dataUrl(file)).replace(/^data:(application\/octet-stream|);/, "data:audio/wav;");
    return speakersApi.enrolReference(name, reference);
  },
  /** Enrols a voice from a clip already made into a data URL (a job's stretch of one speaker). */
  enrolReference: (name: string, reference: string): Promise<Speaker> =>
    unwrap(voxedge.POST("/v1/speakers", { body: { name, reference } })),
  delete: async (speakerId: string): Promise<void> => {
    await unwrap(
      voxedge.DELETE("/v1/speakers/{speaker_id}", { params: { path: { speaker_id: speakerId } } }),
    );
  },
};
