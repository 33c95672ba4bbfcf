import { apiKey } from "../auth/key-store.ts";
import { ApiFailure, failureFrom } from "./failure.ts";
import type {
  Background,
  ContentTaskResult,
  CreateAccepted,
  HealthResponse,
  HistoryPage,
  JobStatus,
  LanguagesResponse,
  ModelsResponse,
  Note,
  NotePage,
  PresignResponse,
  SessionCreated,
  SessionDetails,
  SocketToken,
  TaskAccepted,
  TaskStatusResponse,
  Template,
  Voice,
} from "./types.ts";

interface RequestOptions {
  method?: string;
  json?: unknown;
  /** Fields sent as application/x-www-form-urlencoded (the content create endpoints). */
  form?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** Another key than the signed-in one (the sign-in form checks a key before keeping it). */
  key?: string;
}

/**
 * Calls the API on this origin with the signed-in key (none on a keyless page); resolves the JSON body
 * (undefined for 204 No Content), rejects an ApiFailure.
 *
 * @example const page = await request<HistoryPage>("/history", { query: { limit: 20 } });
 */
export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined && value !== "") url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = {};
  const key = options.key ?? apiKey.value;
  if (key) headers.authorization = `Bearer ${key}`;
  let body: string | URLSearchParams | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    // fetch sets application/x-www-form-urlencoded;charset=UTF-8 for a URLSearchParams body
    body = new URLSearchParams(options.form);
  }
  let response: Response;
  try {
    response = await fetch(url, { method: options.method ?? "GET", headers, body, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiFailure(0, "network", error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) throw await failureFrom(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

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
  health: () => request<HealthResponse>("/health"),
  models: () => request<ModelsResponse>("/models"),
  history: (query: { limit: number; skip: number; status?: JobStatus }, signal?: AbortSignal) =>
    request<HistoryPage>("/history", { query, signal }),
  task: (taskId: string, signal?: AbortSignal) =>
    request<TaskStatusResponse>(`/transcribe/${encodeURIComponent(taskId)}`, { signal }),
  presign: (filename: string, contentType: string) =>
    request<PresignResponse>("/uploads/presign", {
      method: "POST",
      json: { filename, content_type: contentType },
    }),
  transcribeObject: (objectKey: string, options: TranscribeOptions) =>
    request<TaskAccepted>("/transcribe/object", {
      method: "POST",
      json: { object_key: objectKey, ...enqueueFields(options) },
    }),
  transcribeUrl: (fileUrl: string, options: TranscribeOptions) =>
    request<TaskAccepted>("/transcribe", {
      method: "POST",
      json: { file_url: fileUrl, ...enqueueFields(options) },
    }),
  /** Cancels the job if it is still running and deletes it with its audio and transcript (204). */
  deleteJob: (taskId: string) =>
    request<void>(`/transcribe/${encodeURIComponent(taskId)}`, { method: "DELETE" }),
  /** Checks a key before the console keeps it: the cheapest authenticated call. */
  checkKey: (key: string) => request<HistoryPage>("/history", { query: { limit: 1 }, key }),
};

/**
 * Socket tokens: a browser's WebSocket cannot send headers, so the console opens /ws and
 * /api/v1/ws/single with a short-lived token in the URL instead of the API key itself.
 */
export const authApi = {
  socketToken: (scope: "live" | "translate") =>
    request<SocketToken>("/v1/auth/tokens", { method: "POST", json: { scope } }),
};

/** The content kinds the studio creates, by their create path. */
export type ContentForm = "shorts" | "quiz-video" | "slide";

/** Real-time translation (/api/v1): languages and rooms. The language list and a room's details need no key. */
export const translationApi = {
  languages: (signal?: AbortSignal) => request<LanguagesResponse>("/api/v1/languages", { signal }),
  createSession: (language: string, translateLanguage: string) =>
    request<SessionCreated>("/api/v1/session/create", {
      method: "POST",
      json: { language, translate_language: translateLanguage },
    }),
  session: (conversationId: string, signal?: AbortSignal) =>
    request<SessionDetails>(`/api/v1/session/${encodeURIComponent(conversationId)}`, { signal }),
};

/** Content generation: notes, the catalogs, the create forms and task polling. */
export const contentApi = {
  notes: (query: { limit: number; skip: number }, signal?: AbortSignal) =>
    request<NotePage>("/v1/notes", { query, signal }),
  note: (noteId: string) => request<Note>(`/v1/notes/${encodeURIComponent(noteId)}`),
  createNote: (
    body: { title?: string; content: string; language?: string } | { transcription_task_id: string },
  ) => request<Note>("/v1/notes", { method: "POST", json: body }),
  deleteNote: (noteId: string) =>
    request<void>(`/v1/notes/${encodeURIComponent(noteId)}`, { method: "DELETE" }),
  voices: () => request<{ voices: Voice[] }>("/v1/voices"),
  backgrounds: () => request<{ backgrounds: Background[] }>("/v1/backgrounds"),
  templates: () => request<{ templates: Template[] }>("/v1/templates"),
  create: (form: ContentForm, fields: Record<string, string>) =>
    request<CreateAccepted>(`/v2/create/${form}`, { method: "POST", form: fields }),
  task: (taskId: string, signal?: AbortSignal) =>
    request<ContentTaskResult>(`/v1/create/tasks/${encodeURIComponent(taskId)}/result`, { signal }),
  /** Cancels the task if it is still running and deletes it with its outputs (204). */
  deleteTask: (taskId: string) =>
    request<void>(`/v1/create/tasks/${encodeURIComponent(taskId)}`, { method: "DELETE" }),
};
