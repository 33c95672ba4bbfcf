/**
 * A failed API call, with what the API said: `status` 0 means the server was not reached. `detail`
 * is the body's message (for a 422, the validation messages joined); `code` its stable code (the
 * content service's `error_key`).
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

/**
 * Reads an error response into an ApiFailure. Each service keeps its envelope: `{detail, code}` (a 422's
 * detail is an issue list), OpenAI's `{error: {message, code}}`, the content service's
 * `{error, error_key, message}` and real-time translation's `{error, code}`.
 */
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
    error?: unknown;
    error_key?: unknown;
    message?: unknown;
  };
  const nested =
    typeof shaped.error === "object" && shaped.error !== null
      ? (shaped.error as { message?: unknown })
      : null;
  let detail = statusText;
  if (typeof shaped.detail === "string") detail = shaped.detail;
  else if (Array.isArray(shaped.detail)) {
    detail = shaped.detail
      .map((issue: { loc?: unknown[]; msg?: unknown }) => {
        const where = (issue.loc ?? []).filter((part) => part !== "body").join(".");
        return where ? `${where}: ${String(issue.msg)}` : String(issue.msg);
      })
      .join("; ");
  } else if (typeof nested?.message === "string") detail = nested.message;
  else if (typeof shaped.message === "string" && shaped.message) detail = shaped.message;
  else if (typeof shaped.error === "string") detail = shaped.error;
  const code =
    typeof shaped.error_key === "string"
      ? shaped.error_key
      : typeof shaped.code === "string"
        ? shaped.code
        : null;
  return new ApiFailure(status, code, detail, retryAfterSec);
}
