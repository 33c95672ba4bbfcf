/** Content types of uploaded media: what is stored, and what GET /media may answer with. */

/** A bare media type (RFC 6838 names, no parameters), e.g. `audio/mpeg`. */
export const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,62}\/[A-Za-z0-9][\w!#$&^.+-]{0,62}$/;

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** Printable ASCII in quotes; `"` and `\` only escaped. */
const QUOTED_STRING = String.raw`"(?:[\t !#-\[\]-~]|\\[\t -~])*"`;

/** The longest Content-Type a presign accepts (its value travels in the upload URL's query). */
export const MAX_CONTENT_TYPE_LENGTH = 255;

/**
 * A Content-Type header value (RFC 9110 §8.3.1): a media type with optional parameters, e.g.
 * `audio/webm;codecs=opus` as a browser's MediaRecorder reports it. No leading or trailing whitespace
 * (an HTTP client strips it, so a value with it could never match the PUT), no control characters.
 */
export const CONTENT_TYPE = new RegExp(
  String.raw`^${MEDIA_TYPE.source.slice(1, -1)}(?:[ \t]*;[ \t]*${TOKEN}=(?:${TOKEN}|${QUOTED_STRING}))*$`,
);

const OCTET_STREAM = "application/octet-stream";

/** The type to store for an upload: the client's when it is a well-formed media type, else octet-stream. */
export function uploadContentType(value: string | null | undefined): string {
  const type = value?.split(";", 1)[0]?.trim() ?? "";
  return MEDIA_TYPE.test(type) ? type : OCTET_STREAM;
}

/**
 * Document types the renderers produce (slide decks, notes, caption sidecars), served as stored: none
 * is drawn as a page by a browser, and GET /media sends them as attachments with nosniff.
 */
const DOCUMENT_TYPES = new Set([
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "text/markdown",
  "application/json",
  "application/x-subrip",
  "text/vtt",
]);

/**
 * The type GET /media answers with: audio, video and the renderers' document types as stored,
 * anything else as octet-stream, so a stored object is never served as a page (HTML, SVG) from the
 * API's origin.
 */
export function servedContentType(stored: string | null): string {
  if (!stored) return OCTET_STREAM;
  return /^(audio|video)\//i.test(stored) || DOCUMENT_TYPES.has(stored.toLowerCase()) ? stored : OCTET_STREAM;
}
