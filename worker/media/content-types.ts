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

/** Document types the renderers produce (slide decks, printable quizzes and guides), served as stored. */
const DOCUMENT_TYPES = new Set([
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "text/markdown",
  "application/json",
  "application/x-subrip",
  "text/vtt",
]);

/**
 * The studio's text files (flashcards, mind maps, quizzes, study guides, scripts, caption sidecars: a
 * player's <track> needs text/vtt): UTF-8, served as stored with
 * `charset=utf-8` (the stored type is bare), so Vietnamese text shows as written. No HTML among them;
 * XML (Moodle's quiz format) only as a download (DOWNLOAD_ONLY_TYPES).
 */
const UTF8_TEXT_TYPES = new Set([
  "application/json",
  "text/csv",
  "text/markdown",
  "text/x-opml",
  "text/plain",
  "application/xml",
  "text/vtt",
  "application/x-subrip",
]);

/**
 * Served types a browser would render as a document of the API's origin if shown in place (an XML
 * file may declare the XHTML namespace and run script): these always download, whatever is asked.
 */
const DOWNLOAD_ONLY_TYPES = new Set(["application/xml"]);

export const isDownloadOnly = (type: string) =>
  DOWNLOAD_ONLY_TYPES.has(type.split(";", 1)[0]?.trim().toLowerCase() ?? "");

/** Pictures the renderers make: PNG as stored; SVG as stored too, behind SANDBOXED_POLICY. */
const PICTURE_TYPES = new Set(["image/png", "image/svg+xml"]);

/**
 * The Content-Security-Policy of a served SVG: opened as a page, it is a sandboxed document that may
 * use its own inline style and data: fonts and pictures (the mind map embeds its face) and nothing
 * else, so no script in it can run, whoever wrote the file.
 */
export const SANDBOXED_POLICY =
  "sandbox; default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data:; frame-ancestors 'self'";

/** The Content-Security-Policy GET /media answers an object of the served `contentType` with. */
export function servedSecurityPolicy(contentType: string): string {
  // Framed only by this origin (the console's PDF preview); the other served types never run script.
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  // XML downloads anyway (DOWNLOAD_ONLY_TYPES); sandboxed too, should a browser open it regardless
  return type === "image/svg+xml" || type === "application/xml" ? SANDBOXED_POLICY : "frame-ancestors 'self'";
}

/**
 * The type GET /media answers with: audio, video, the renderers' documents, text files and pictures as
 * stored (text with its charset), anything else as octet-stream, so a stored object is never served as
 * an HTML page from the API's origin, and an SVG only with SANDBOXED_POLICY.
 */
export function servedContentType(stored: string | null): string {
  const type = stored?.toLowerCase();
  if (!stored || !type) return OCTET_STREAM;
  if (UTF8_TEXT_TYPES.has(type)) return `${type}; charset=utf-8`;
  if (PICTURE_TYPES.has(type)) return type;
  return /^(audio|video)\//.test(type) || DOCUMENT_TYPES.has(type) ? stored : OCTET_STREAM;
}

/** Whether an output of this (bare) type is stored: only what GET /media serves as what it is. */
export function isOutputType(type: string): boolean {
  return type === OCTET_STREAM || servedContentType(type).split(";", 1)[0] === type;
}
