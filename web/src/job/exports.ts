import type { Segment, TranscriptionResult } from "../api/types.ts";

/**
 * Transcript files made in the browser from a job's result: plain text, SubRip, WebVTT and the JSON
 * result itself. `speakerName` maps a diarization label (SPEAKER_00) to the name the user gave it.
 */
export type ExportFormat = "txt" | "srt" | "vtt" | "json";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["txt", "srt", "vtt", "json"];
export type SpeakerName = (label: string) => string;

const MIME: Record<ExportFormat, string> = {
  txt: "text/plain;charset=utf-8",
  srt: "application/x-subrip;charset=utf-8",
  vtt: "text/vtt;charset=utf-8",
  json: "application/json",
};

/**
 * A cue time: `HH:MM:SS,mmm` for SRT, `HH:MM:SS.mmm` for VTT.
 *
 * @example cueTime(3661.5, ",") // "01:01:01,500"
 */
export function cueTime(seconds: number, separator: "," | "."): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

const cueSegments = (result: TranscriptionResult): Segment[] =>
  result.segments.filter((segment) => segment.text.trim() !== "");

/** Plain text: one line per segment, "Name: text" when speakers are known; the whole text otherwise. */
export function toTxt(result: TranscriptionResult, speakerName: SpeakerName): string {
  const segments = cueSegments(result);
  if (segments.length === 0) return `${result.text.trim()}\n`;
  const lines = segments.map((s) =>
    s.speaker ? `${speakerName(s.speaker)}: ${s.text.trim()}` : s.text.trim(),
  );
  return `${lines.join("\n")}\n`;
}

/** SubRip: numbered cues from 1, the speaker's name before the text. */
export function toSrt(result: TranscriptionResult, speakerName: SpeakerName): string {
  return cueSegments(result)
    .map((s, i) => {
      const text = s.speaker ? `${speakerName(s.speaker)}: ${s.text.trim()}` : s.text.trim();
      return `${i + 1}\n${cueTime(s.start, ",")} --> ${cueTime(s.end, ",")}\n${text}\n`;
    })
    .join("\n");
}

const escapeVtt = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** WebVTT: each cue with a voice tag naming its speaker, so players can show or style it. */
export function toVtt(result: TranscriptionResult, speakerName: SpeakerName): string {
  const cues = cueSegments(result).map((s) => {
    const text = escapeVtt(s.text.trim());
    const voice = s.speaker ? `<v ${escapeVtt(speakerName(s.speaker))}>` : "";
    return `${cueTime(s.start, ".")} --> ${cueTime(s.end, ".")}\n${voice}${text}\n`;
  });
  return `WEBVTT\n\n${cues.join("\n")}`;
}

/** The result as the API returned it, with the names the user gave speakers. */
export function toJson(result: TranscriptionResult, speakerNames: Record<string, string>): string {
  return `${JSON.stringify({ ...result, speaker_names: speakerNames }, null, 2)}\n`;
}

/** A downloadable file of the result in `format`. */
export function exportFile(
  format: ExportFormat,
  result: TranscriptionResult,
  speakerNames: Record<string, string>,
): Blob {
  const name: SpeakerName = (label) => speakerNames[label] || label;
  const text =
    format === "txt"
      ? toTxt(result, name)
      : format === "srt"
        ? toSrt(result, name)
        : format === "vtt"
          ? toVtt(result, name)
          : toJson(result, speakerNames);
  return new Blob([text], { type: MIME[format] });
}
