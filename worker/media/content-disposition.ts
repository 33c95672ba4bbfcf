/**
 * The Content-Disposition GET /media answers with. Audio and video play in place (a player element, a
 * link opened in a tab); the renderers' documents (PDF, PPTX) download unless the caller asks for
 * `inline` (the console's PDF preview frame does), except XML, which always downloads; anything else
 * is served as octet-stream and only ever downloads.
 */
import { isDownloadOnly } from "./content-types.ts";

/** What a caller may ask for with `?disposition=`. */
export type RequestedDisposition = "inline" | "attachment";

const OCTET_STREAM = "application/octet-stream";

/**
 * The header value for an object of the served `contentType`, named by the last segment of its key
 * (a slug of `[a-z0-9._-]`, so it needs no escaping inside the quotes).
 *
 * @example contentDisposition("outputs/6f1c…/deck.pdf", "application/pdf", null) // 'attachment; filename="deck.pdf"'
 */
export function contentDisposition(
  objectKey: string,
  contentType: string,
  requested: RequestedDisposition | null,
): string {
  const filename = objectKey.slice(objectKey.lastIndexOf("/") + 1);
  const plays = /^(audio|video)\//i.test(contentType);
  const inline =
    contentType !== OCTET_STREAM &&
    !isDownloadOnly(contentType) &&
    (requested ?? (plays ? "inline" : "attachment")) === "inline";
  return `${inline ? "inline" : "attachment"}; filename="${filename}"`;
}
