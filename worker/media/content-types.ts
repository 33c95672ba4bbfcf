/** Content types of uploaded media: what is stored, and what GET /media may answer with. */

/** A bare media type (RFC 6838 names, no parameters), e.g. `audio/mpeg`. */
export const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,62}\/[A-Za-z0-9][\w!#$&^.+-]{0,62}$/;

const OCTET_STREAM = "application/octet-stream";

/** The type to store for an upload: the client's when it is a well-formed media type, else octet-stream. */
export function uploadContentType(value: string | null | undefined): string {
  const type = value?.split(";", 1)[0]?.trim() ?? "";
  return MEDIA_TYPE.test(type) ? type : OCTET_STREAM;
}

/** Document types the renderers produce (slide decks), served as stored. */
const DOCUMENT_TYPES = new Set([
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
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
