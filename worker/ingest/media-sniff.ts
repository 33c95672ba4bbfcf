/**
 * Whether a file_url's answer is something other than media: a share host's sign-in, virus-scan
 * warning or "link expired" page, or an API's JSON error, answered with 200. Decided from the declared
 * Content-Type, and for a generic or missing one from the first bytes. Only positive evidence refuses:
 * a specific type that is not obviously a document (audio/*, video/*, anything unlisted) is never
 * sniffed, and bytes that carry none of the markers below pass.
 */

/** What a non-media answer is, for the 400's wording. */
export type NonMedia = "html" | "json" | "xml" | "text";

/** How the declared Content-Type settles the question: it does, or the first bytes must. */
export type DeclaredVerdict = { kind: "media" } | { kind: "sniff" } | { kind: "not_media"; what: NonMedia };

/** Bytes of a file's start that the sniff reads (the probe asks for them with a Range). */
export const SNIFF_BYTES = 512;

/** Types that say nothing about the bytes ("a download"); what the server really sends is sniffed. */
const GENERIC_TYPES = new Set([
  "application/octet-stream",
  "binary/octet-stream",
  "application/binary",
  "application/x-binary",
  "application/download",
  "application/x-download",
  "application/force-download",
  "application/unknown",
]);

/**
 * The declared Content-Type's verdict: text/*, JSON, XML and script types are documents, never media;
 * none or a generic one needs the bytes; any other type passes.
 *
 * @example judgeDeclaredType("text/html; charset=utf-8") // { kind: "not_media", what: "html" }
 */
export function judgeDeclaredType(contentType: string | null): DeclaredVerdict {
  const essence = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (essence === "" || GENERIC_TYPES.has(essence)) return { kind: "sniff" };
  if (essence === "text/html" || essence === "application/xhtml+xml") return notMedia("html");
  if (essence === "application/json" || essence === "text/json" || essence.endsWith("+json")) {
    return notMedia("json");
  }
  if (essence === "application/xml" || essence === "text/xml" || essence.endsWith("+xml")) {
    return notMedia("xml");
  }
  if (essence.startsWith("text/") || essence === "application/javascript") return notMedia("text");
  return { kind: "media" };
}

function notMedia(what: NonMedia): DeclaredVerdict {
  return { kind: "not_media", what };
}

/**
 * HTML's signatures in the MIME Sniffing Standard (WHATWG, "identifying a resource with an unknown MIME
 * type"): after leading whitespace, one of these (any case) ending its tag name (whitespace or `>`
 * next; the standard names only a space or `>`, a newline is as plain a sign of a page).
 */
const HTML_OPENINGS = [
  "<!doctype html",
  "<html",
  "<head",
  "<script",
  "<iframe",
  "<h1",
  "<div",
  "<font",
  "<table",
  "<a",
  "<style",
  "<title",
  "<b",
  "<body",
  "<br",
  "<p",
  "<!--",
];
const UTF8_BOM = [0xef, 0xbb, 0xbf];
const WHITESPACE = new Set([0x09, 0x0a, 0x0c, 0x0d, 0x20]);

/**
 * The standard's "binary data bytes": control bytes no text carries. Every media container holds some
 * in its first bytes (a length, a version, a zero padding), so a sample without any is text.
 */
function isBinaryDataByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f);
}

/**
 * What a file's first bytes show it to be when they are not media: an HTML page or XML (by their
 * opening, as the MIME Sniffing Standard recognises them), or JSON or other text (no binary data byte
 * at all); null for anything else, every media format included.
 *
 * @example sniffNonMedia(new TextEncoder().encode("<!DOCTYPE html><html>")) // "html"
 */
export function sniffNonMedia(head: Uint8Array): NonMedia | null {
  let at = UTF8_BOM.every((byte, i) => head[i] === byte) ? UTF8_BOM.length : 0;
  while (at < head.length && WHITESPACE.has(head[at] ?? 0)) at++;
  const opening = String.fromCharCode(...head.subarray(at, at + 16)).toLowerCase();
  const terminated = (marker: string) => {
    const next = opening.charCodeAt(marker.length);
    return marker === "<!--" || next === 0x3e || WHITESPACE.has(next);
  };
  if (HTML_OPENINGS.some((marker) => opening.startsWith(marker) && terminated(marker))) return "html";
  if (opening.startsWith("<?xml")) return "xml";
  if (at === head.length || head.some(isBinaryDataByte)) return null;
  return opening.startsWith("{") || opening.startsWith("[") ? "json" : "text";
}

/**
 * The 400's wording for a non-media answer from `host`.
 *
 * @example describeNonMedia("html", "drive.google.com") // "drive.google.com answered an HTML page …, not media"
 */
export function describeNonMedia(what: NonMedia, host: string): string {
  const answer = {
    html: "an HTML page (a sign-in page, a download warning or an expired share link?)",
    json: "a JSON document (an error from an API?)",
    xml: "an XML document (an error from a storage service?)",
    text: "a text document",
  }[what];
  return `${host} answered ${answer}, not media`;
}
