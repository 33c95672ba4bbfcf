import { apiKey } from "../auth/key-store.ts";
import { ApiFailure, failureFrom } from "./failure.ts";
import type {
  HealthResponse,
  HistoryPage,
  JobStatus,
  PresignResponse,
  TaskAccepted,
  TaskStatusResponse,
} from "./types.ts";

interface RequestOptions {
  method?: string;
  json?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** Another key than the signed-in one (the sign-in form checks a key before keeping it). */
  key?: string;
}

/**
 * Calls the API on this origin with the signed-in key; resolves the JSON body, rejects an ApiFailure.
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
  if (options.json !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? "GET",
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new ApiFailure(0, "network", error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) throw await failureFrom(response);
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
  /** Checks a key before the console keeps it: the cheapest authenticated call. */
  checkKey: (key: string) => request<HistoryPage>("/history", { query: { limit: 1 }, key }),
};
