import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pcmWavHeader } from "../../protocol/wav.ts";
import { judgeDeclaredType, SNIFF_BYTES, sniffNonMedia } from "../../worker/ingest/media-sniff.ts";

const text = (s: string) => new TextEncoder().encode(s);
const bytes = (...values: number[]) => Uint8Array.from(values);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The first bytes of real files of each format the node decodes, as their encoders write them. */
const MEDIA_OPENINGS: Record<string, Uint8Array> = {
  wav: pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, 32_000),
  "mp3 with ID3": bytes(...ascii("ID3"), 0x04, 0x00, 0x00, 0x00, 0x00, 0x23, 0x54),
  "mp3 frame": bytes(0xff, 0xfb, 0x90, 0x64, 0x00, 0x0f, 0xf0, 0x00),
  "aac (ADTS)": bytes(0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc),
  ogg: bytes(...ascii("OggS"), 0x00, 0x02, 0x00, 0x00, 0x00, 0x00),
  flac: bytes(...ascii("fLaC"), 0x00, 0x00, 0x00, 0x22),
  mp4: bytes(0x00, 0x00, 0x00, 0x20, ...ascii("ftypisom"), 0x00, 0x00, 0x02, 0x00),
  webm: bytes(0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01),
  amr: bytes(...ascii("#!AMR\n"), 0x3c, 0x48, 0xf5, 0x1f, 0x96, 0x66, 0x79, 0xe1, 0xe0, 0x01),
};

describe("judgeDeclaredType", () => {
  it("refuses documents by their type, whatever the parameters and case", () => {
    expect(judgeDeclaredType("text/html; charset=utf-8")).toEqual({ kind: "not_media", what: "html" });
    expect(judgeDeclaredType("application/xhtml+xml")).toEqual({ kind: "not_media", what: "html" });
    expect(judgeDeclaredType("Application/JSON")).toEqual({ kind: "not_media", what: "json" });
    expect(judgeDeclaredType("application/problem+json")).toEqual({ kind: "not_media", what: "json" });
    expect(judgeDeclaredType("application/xml")).toEqual({ kind: "not_media", what: "xml" });
    expect(judgeDeclaredType("text/plain")).toEqual({ kind: "not_media", what: "text" });
    expect(judgeDeclaredType("text/csv")).toEqual({ kind: "not_media", what: "text" });
  });

  it("leaves a missing or generic type to the bytes", () => {
    for (const type of [
      null,
      "",
      "application/octet-stream",
      "binary/octet-stream",
      "application/force-download",
    ]) {
      expect(judgeDeclaredType(type), String(type)).toEqual({ kind: "sniff" });
    }
  });

  it("takes media and any other specific type at its word", () => {
    for (const type of [
      "audio/wav",
      "audio/mpeg",
      "video/mp4",
      "audio/webm;codecs=opus",
      "application/ogg",
    ]) {
      expect(judgeDeclaredType(type), type).toEqual({ kind: "media" });
    }
  });
});

describe("sniffNonMedia", () => {
  it("recognises HTML pages by their opening, after a BOM, whitespace or a comment", () => {
    expect(sniffNonMedia(text("<!DOCTYPE html><html>"))).toBe("html");
    expect(sniffNonMedia(text("\ufeff\r\n  <!doctype HTML>"))).toBe("html");
    expect(sniffNonMedia(text('<html lang="en">'))).toBe("html");
    expect(sniffNonMedia(text("<HEAD>\n"))).toBe("html");
    expect(sniffNonMedia(text("<!-- Copyright --><!DOCTYPE html>"))).toBe("html");
    // HTML markers count even beside a binary byte (a page with a stray control character).
    expect(sniffNonMedia(bytes(...ascii("<html>"), 0x00))).toBe("html");
  });

  it("tells XML, JSON and other text apart", () => {
    expect(sniffNonMedia(text('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>'))).toBe("xml");
    expect(sniffNonMedia(text('{"error":{"code":"itemNotFound"}}'))).toBe("json");
    expect(sniffNonMedia(text(' [{"id": 1}]'))).toBe("json");
    expect(sniffNonMedia(text("Download limit exceeded.\n"))).toBe("text");
    expect(sniffNonMedia(text("<htmlx not a tag>"))).toBe("text");
  });

  it("finds nothing in an empty or blank start", () => {
    expect(sniffNonMedia(new Uint8Array())).toBeNull();
    expect(sniffNonMedia(text(" \n"))).toBeNull();
  });

  it("never takes media for a document, whatever follows its opening", () => {
    for (const [format, opening] of Object.entries(MEDIA_OPENINGS)) {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: SNIFF_BYTES - opening.length }), (rest) => {
          const head = new Uint8Array(opening.length + rest.length);
          head.set(opening);
          head.set(rest, opening.length);
          expect(sniffNonMedia(head), format).toBeNull();
        }),
      );
    }
  });
});
