import { LABELLED, toPlainText, toSrt, toVtt, translatedCues } from "../../protocol/subtitles.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { ApiError } from "../errors.ts";
import { toDiarizedJson } from "../openai/formats.ts";
import type { SubtitleFormat, SubtitlesQuery } from "../schemas/subtitles.ts";
import { readOwnedTranscription } from "./poll.ts";

/**
 * A finished transcription as a subtitle or text file for its owner: the task must be done (its
 * transcript exists only then), and a translated file needs the job's translation.
 */

export interface SubtitleFile {
  body: string;
  contentType: string;
  filename: string;
}

const CONTENT_TYPE: Record<SubtitleFormat, string> = {
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
  diarized_json: "application/json",
};

/** File name endings; diarized_json is a JSON file too, told apart from the result's. */
const EXTENSION: Record<SubtitleFormat, string> = {
  srt: "srt",
  vtt: "vtt",
  txt: "txt",
  json: "json",
  diarized_json: "diarized.json",
};

/** The caller's task `taskId` as a file; 404 for another key's or an unknown task, 409 until it is done. */
export async function exportSubtitles(
  env: Env,
  taskId: string,
  ownerKeyId: string,
  query: SubtitlesQuery,
): Promise<SubtitleFile> {
  const record = await readOwnedTranscription(env, taskId, ownerKeyId);
  if (record.status === "failed") {
    throw new ApiError("conflict", `task failed (${record.error_code ?? "unknown"}): it has no transcript`);
  }
  if (record.status !== "done" || !record.result) {
    throw new ApiError("conflict", `task is ${record.status}: its transcript is ready once it is done`);
  }
  return {
    body: renderSubtitles(record.result, query),
    contentType: CONTENT_TYPE[query.format],
    filename: `${taskId}.${EXTENSION[query.format]}`,
  };
}

/**
 * The body of one export. json is the result as stored, without an audio link (a saved file would
 * hold an expiring one; the poll mints a fresh link).
 *
 * @example renderSubtitles(result, { format: "srt", translated: false }) // "1\n00:00:00,000 --> 00:00:01,500\nxin chào\n\n"
 */
export function renderSubtitles(result: TranscriptionResult, query: SubtitlesQuery): string {
  if (query.format === "json" || query.format === "diarized_json") {
    if (query.translated) {
      throw new ApiError("bad_request", `translated applies to srt, vtt and txt, not ${query.format}`);
    }
    if (query.format === "diarized_json") return JSON.stringify(toDiarizedJson(result));
    return `${JSON.stringify({ ...result, audio_url: null }, null, 2)}\n`;
  }
  if (query.translated && !result.translation?.trim()) {
    throw new ApiError("conflict", "this job has no translation");
  }
  const cues = query.translated ? translatedCues(result) : result.segments;
  const wholeText = query.translated ? (result.translation ?? "") : result.text;
  switch (query.format) {
    case "srt":
      return toSrt(cues, LABELLED);
    case "vtt":
      return toVtt(cues, LABELLED);
    case "txt":
      return toPlainText(query.translated ? [] : cues, wholeText, LABELLED);
  }
}
