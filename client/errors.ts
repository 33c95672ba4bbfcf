/**
 * The one error the Voxedge client throws. The API's services keep their own error envelopes; this
 * reads all four into the same fields, so a caller branches on `status` and `code` alone:
 *
 * | envelope | where | `code` | `message` | `details` |
 * |---|---|---|---|---|
 * | `{detail, code}` | speech-to-text, history, uploads, media, auth | `code` | `detail` | none |
 * | `{detail: [issue…], code: "validation_error"}` | the same, a 422 | `validation_error` | each issue's `loc: msg`, joined | the issues |
 * | `{error: {message, type, param, code}}` | the OpenAI-compatible `/v1/audio/*`, `/v1/models` | `code`, else `type` | `message` | `{type, param}` |
 * | `{error, error_key, message}` | content: `/v1/notes`, `/v2/create`, `/v1/create/tasks`, catalogs | `error_key` | `message`, else `error` | `{error}` |
 * | `{error, code}` | real-time translation `/api/v1` | `code` | `error` | none |
 *
 * A body that is none of these (a proxy's HTML page) keeps `code` null and the status text as message.
 * `status` 0 with `code: "network"` means the server was not reached.
 */
export class VoxedgeApiError extends Error {
  override readonly name = "VoxedgeApiError";

  constructor(
    /** The HTTP status; 0 when the request never got an answer. */
    readonly status: number,
    /** The stable machine-readable code (`error_key` on the content service); null when the body had none. */
    readonly code: string | null,
    message: string,
    /** What the envelope adds beyond code and message: validation issues, OpenAI's `type` and `param`. */
    readonly details: unknown,
    /** The response body as received: parsed JSON, or the text when it was not JSON. */
    readonly body: unknown,
    /** Seconds from the `Retry-After` header (429, 503), when the answer had one. */
    readonly retryAfterSec: number | null = null,
  ) {
    super(message || (status ? `HTTP ${status}` : "network error"));
  }

  /**
   * Reads a failed response into the error (consumes its body).
   *
   * @example if (!response.ok) throw await VoxedgeApiError.fromResponse(response);
   */
  static async fromResponse(response: Response): Promise<VoxedgeApiError> {
    const text = await response.text().catch(() => "");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the text is kept as the raw body and the status text speaks for it
    }
    const retryAfter = Number(response.headers.get("retry-after"));
    const retryAfterSec = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null;
    return VoxedgeApiError.fromBody(response.status, body, response.statusText, retryAfterSec);
  }

  /**
   * Reads an already parsed error body (an XMLHttpRequest's, say) into the error.
   *
   * @example VoxedgeApiError.fromBody(404, { error: "conversation not found or expired", code: "not_found" })
   */
  static fromBody(
    status: number,
    body: unknown,
    statusText = "",
    retryAfterSec: number | null = null,
  ): VoxedgeApiError {
    const { code, message, details } = readEnvelope(body);
    return new VoxedgeApiError(status, code, message ?? statusText, details, body, retryAfterSec);
  }

  /** A request that got no answer (DNS, refused connection, CORS, offline). */
  static network(cause: unknown): VoxedgeApiError {
    const message = cause instanceof Error ? cause.message : String(cause);
    return new VoxedgeApiError(0, "network", message, undefined, undefined);
  }
}

interface Envelope {
  code: string | null;
  message: string | undefined;
  details: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** Which of the four envelopes a body is, read into code, message and details. */
function readEnvelope(body: unknown): Envelope {
  if (!isRecord(body)) return { code: null, message: undefined, details: undefined };
  const code = stringOr(body.code) ?? null;
  // {detail, code} and the 422 HTTPValidationError {detail: [issue…], code}
  if (typeof body.detail === "string") return { code, message: body.detail, details: undefined };
  if (Array.isArray(body.detail)) {
    return { code, message: body.detail.map(issueText).join("; "), details: body.detail };
  }
  // OpenAI's {error: {message, type, param, code}}
  if (isRecord(body.error)) {
    const { message, type, param } = body.error;
    return {
      code: stringOr(body.error.code) ?? stringOr(type) ?? null,
      message: stringOr(message),
      details: { type: stringOr(type) ?? null, param: stringOr(param) ?? null },
    };
  }
  // content {error, error_key, message}
  if (typeof body.error_key === "string") {
    return {
      code: body.error_key,
      message: stringOr(body.message) || stringOr(body.error),
      details: { error: stringOr(body.error) ?? null },
    };
  }
  // real-time translation {error, code}
  if (typeof body.error === "string") return { code, message: body.error, details: undefined };
  return { code, message: stringOr(body.message), details: undefined };
}

/** One validation issue as a line: where (the `body` prefix left out), then what. */
function issueText(issue: unknown): string {
  if (!isRecord(issue)) return String(issue);
  const loc = Array.isArray(issue.loc) ? issue.loc.filter((part) => part !== "body") : [];
  return loc.length > 0 ? `${loc.join(".")}: ${String(issue.msg)}` : String(issue.msg);
}
