import { toPlainText, toSrt, toVtt } from "../../../protocol/subtitles.ts";
import type { TranscriptionResult } from "../api/types.ts";

/**
 * Transcript files made in the browser from a job's result: plain text, SubRip and WebVTT through the
 * platform's one subtitle writer (protocol/subtitles.ts), and the JSON result itself. The speakers
 * carry the names the user gave them (SPEAKER_00 → "Alice"), which the API's export does not know.
 */
export type ExportFormat = "txt" | "srt" | "vtt" | "json";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["txt", "srt", "vtt", "json"];

const MIME: Record<ExportFormat, string> = {
  txt: "text/plain;charset=utf-8",
  srt: "application/x-subrip;charset=utf-8",
  vtt: "text/vtt;charset=utf-8",
  json: "application/json",
};

/** The result as the API returned it, with the names the user gave speakers. */
export function toJson(result: TranscriptionResult, speakerNames: Record<string, string>): string {
  return `${JSON.stringify({ ...result, speaker_names: speakerNames }, null, 2)}\n`;
}

/** The text of the file in `format`. */
export function exportText(
  format: ExportFormat,
  result: TranscriptionResult,
  speakerNames: Record<string, string>,
): string {
  const options = {
    speakerName: (label: string) => speakerNames[label] || label,
    dialect: "standard",
  } as const;
  switch (format) {
    case "txt":
      return toPlainText(result.segments, result.text, options);
    case "srt":
      return toSrt(result.segments, options);
    case "vtt":
      return toVtt(result.segments, options);
    case "json":
      return toJson(result, speakerNames);
  }
}

/** A downloadable file of the result in `format`. */
export function exportFile(
  format: ExportFormat,
  result: TranscriptionResult,
  speakerNames: Record<string, string>,
): Blob {
  return new Blob([exportText(format, result, speakerNames)], { type: MIME[format] });
}
