import { z } from "@hono/zod-openapi";

/** The files a finished transcription exports as. */
export const SUBTITLE_FORMATS = ["srt", "vtt", "txt", "json", "diarized_json"] as const;
export const SubtitleFormat = z.enum(SUBTITLE_FORMATS);
export type SubtitleFormat = z.infer<typeof SubtitleFormat>;

export const SubtitlesQuery = z.object({
  format: SubtitleFormat.default("srt").openapi({
    param: { name: "format", in: "query" },
    description:
      "srt (SubRip, `SPEAKER_00: ` before a diarized cue), vtt (WebVTT, `<v SPEAKER_00>` voice tags), " +
      "txt (one line per segment), json (the TranscriptionResult), diarized_json (OpenAI's " +
      "TranscriptionDiarized: speakers `A`, `B`, … in order of first appearance, with duration usage)",
  }),
  translated: z
    .enum(["true", "false"])
    .default("false")
    .transform((value) => value === "true")
    .openapi({
      param: { name: "translated", in: "query" },
      description:
        "srt, vtt or txt of the job's translation instead of its transcript (409 when the job has none). " +
        "The translation has no timings of its own: each sentence is timed where the same share of the " +
        "transcript is spoken, and carries no speaker",
    }),
});
export type SubtitlesQuery = z.infer<typeof SubtitlesQuery>;
