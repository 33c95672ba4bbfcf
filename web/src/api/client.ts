import { apiKey } from "../auth/key-store.ts";
import type {
  HealthResponse,
  HistoryPage,
  JobStatus,
  PresignResponse,
  TaskAccepted,
  TaskStatusResponse,
} from "./types.ts";

/**
 * A failed API call, with what the API said: `status` 0 means the server was not reached. `detail`
 * is the body's message (for a 422, the validation messages joined).
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly detail: string,
    readonly retryAfterSec: number | null = null,
  ) {
    super(detail || `HTTP ${status}`);
    this.name = "ApiFailure";
  }
}

/** Reads an error response into an ApiFailure: our `{detail, code}`, a 422's issue list, or OpenAI's envelope. */
export async function failureFrom(response: Response): Promise<ApiFailure> {
  const retryAfter = Number(response.headers.get("retry-after"));
  const retryAfterSec = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON (a proxy's error page): the status says enough
  }
  return failureFromBody(response.status, body, response.statusText, retryAfterSec);
}

export function failureFromBody(
  status: number,
  body: unknown,
  statusText = "",
  retryAfterSec: number | null = null,
): ApiFailure {
  const shaped = (body ?? {}) as {
    detail?: unknown;
    code?: unknown;
    error?: { message?: unknown; code?: unknown };
  };
  let detail = statusText;
  if (typeof shaped.detail === "string") detail = shaped.detail;
  else if (Array.isArray(shaped.detail)) {
    detail = shaped.detail
      .map((issue: { loc?: unknown[]; msg?: unknown }) => {
        const where = (issue.loc ?? []).filter((part) => part !== "body").join(".");
        return where ? `${where}: ${String(issue.msg)}` : String(issue.msg);
      })
      .join("; ");
  } else if (typeof shaped.error?.message === "string") detail = shaped.error.message;
  const code = typeof shaped.code === "string" ? shaped.code : null;
  return new ApiFailure(status, code, detail, retryAfterSec);
}

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
