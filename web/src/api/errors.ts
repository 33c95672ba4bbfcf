import { VoxedgeApiError } from "../../../client/errors.ts";
import { t } from "../i18n/i18n.ts";
import { en, type MessageKey } from "../i18n/messages.ts";

/**
 * The sentence for a stable error code of the content service (`error_key`: a request error or why a
 * task failed); null for a code without one of its own (generic codes are worded by HTTP status).
 *
 * @example errorKeyText("invalid_slide_count_range") // "The slide count must be …"
 */
export function errorKeyText(key: string | null | undefined): string | null {
  const messageKey = `errorKey.${key}`;
  return key && Object.hasOwn(en, messageKey) ? t(messageKey as MessageKey) : null;
}

/**
 * A sentence a person can act on, for anything an API call or the browser threw. The API's own
 * `detail` (English) follows where it adds something.
 *
 * @example describeError(VoxedgeApiError.fromBody(401, { detail: "invalid API key", code: "unauthorized" })) // "The API key was not accepted…"
 */
export function describeError(error: unknown): string {
  if (!(error instanceof VoxedgeApiError)) {
    if (error instanceof DOMException && error.name === "NotAllowedError") return t("error.micDenied");
    if (error instanceof DOMException && error.name === "NotFoundError") return t("error.micMissing");
    if (error instanceof DOMException && error.name === "SecurityError") return t("error.micInsecure");
    return t("error.unexpected", { detail: error instanceof Error ? error.message : String(error) });
  }
  const keyed = errorKeyText(error.code);
  if (keyed) return keyed;
  const detail = error.message;
  switch (error.status) {
    case 0:
      return t("error.network");
    case 401:
      return t("error.unauthorized");
    case 403:
      return t("error.forbidden", { detail });
    case 404:
      return t("error.notFound");
    case 413:
      return t("error.tooLarge");
    case 422:
      return t("error.validation", { detail });
    case 429:
      return t("error.rateLimited", { seconds: error.retryAfterSec ?? 60 });
    case 503:
      return t("error.unavailable", { detail });
    default:
      return error.status >= 500
        ? t("error.server", { status: error.status, detail })
        : t("error.request", { status: error.status, detail });
  }
}
