/**
 * Shorts in each aspect with real espeak-ng and ffmpeg: the frame ffprobe reads, a caption drawn
 * inside that frame while it is spoken, and the SRT/VTT sidecars ffmpeg parses, timed within the video
 * and saying the narration.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { type ContentDeps, runContentTask } from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { ShortsParams } from "../../protocol/content.ts";
import { captionBox, frameAt, sidecarCues, spokenWords } from "./caption-sidecar-helpers.ts";
import { ENGLISH_NOTE, probe, recordingContext } from "./content-helpers.ts";

let root: string;
const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-short-aspect-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Pixels a caption keeps clear of every edge. */
const EDGE = 16;

describe("short aspects", () => {
  it("reads a task stored before aspect existed as the vertical short it was", () => {
    expect(ShortsParams.parse({ note: ENGLISH_NOTE, voice_id: "en-male" }).aspect).toBe("9:16");
    expect(ShortsParams.safeParse({ note: ENGLISH_NOTE, voice_id: "en-male", aspect: "4:3" }).success).toBe(
      false,
    );
  });

  it.each([
    ["9:16", 1080, 1920],
    ["16:9", 1920, 1080],
    ["1:1", 1080, 1080],
  ] as const)("renders a %s short at %ix%i with its captions inside the frame and SRT/VTT sidecars", async (aspect, width, height) => {
    const result = await runContentTask(
      {
        kind: "shorts",
        params: { note: ENGLISH_NOTE, voice_id: "en-male", clip_duration: 9, bg_id: "charcoal", aspect },
      },
      deps(),
      recordingContext().ctx,
    );
    try {
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["video", "video/mp4"],
        ["srt", "application/x-subrip"],
        ["vtt", "text/vtt"],
      ]);
      expect(result.data.aspect).toBe(aspect);
      const [video, srt, vtt] = result.files.map((f) => f.path) as [string, string, string];
      const media = probe(video);
      expect(media.streams.find((s) => s.codec_type === "video")).toMatchObject({ width, height });

      const cues = sidecarCues(vtt);
      expect(sidecarCues(srt)).toEqual(cues);
      expect(cues.length).toBeGreaterThanOrEqual(3);
      for (const cue of cues) {
        expect(cue.start).toBeGreaterThanOrEqual(0);
        expect(cue.end).toBeGreaterThan(cue.start);
        expect(cue.end).toBeLessThanOrEqual(media.duration + 0.01);
      }
      // The cues say the narration (title, then the body as spoken; the end may be cut to fit).
      const said = spokenWords(cues.map((cue) => cue.text).join(" "));
      expect(said.length).toBeGreaterThan(8);
      expect(said).toEqual(spokenWords(String(result.data.script)).slice(0, said.length));

      // While the first caption line is spoken it is drawn, and all of it lies inside the frame.
      const line = cues[1]!;
      const frame = frameAt(video, (line.start + line.end) / 2, width, height);
      const caption = captionBox(frame, width, height, Math.floor(height / 2));
      expect(caption, "no caption drawn in the lower half").not.toBeNull();
      expect(caption!.pixels).toBeGreaterThan(500);
      expect(caption!.left).toBeGreaterThanOrEqual(EDGE);
      expect(caption!.right).toBeLessThan(width - EDGE);
      expect(caption!.bottom).toBeLessThan(height - EDGE);
      const everything = captionBox(frame, width, height);
      expect(everything!.top).toBeGreaterThanOrEqual(EDGE);
    } finally {
      await result.cleanup();
    }
  });
});
