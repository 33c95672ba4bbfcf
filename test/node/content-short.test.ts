/** Shorts end to end with real espeak-ng and ffmpeg: the video, its captions, audio-only, failures, abort. */
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContentError } from "../../inference-node/content/errors.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import { renderShort } from "../../inference-node/content/render-short.ts";
import { type ContentDeps, runContentTask } from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { VOICES, type Voice } from "../../protocol/content.ts";
import { sidecarCues, spokenWords } from "./caption-sidecar-helpers.ts";
import {
  assEvents,
  ENGLISH_NOTE,
  probe,
  processesMentioning,
  recordingContext,
  UNTITLED_NOTE_EN,
  VIETNAMESE_NOTE,
} from "./content-helpers.ts";

let root: string;
const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-short-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("shorts", () => {
  it("renders a 25 s vertical H.264/AAC short within clip_duration, reporting progress that never goes back", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "shorts",
        params: { note: ENGLISH_NOTE, voice_id: "en-female", clip_duration: 25, bg_id: "sunset" },
      },
      deps(),
      ctx,
    );
    try {
      // the video, then its captions as SRT and VTT (content-short-aspect.test.ts reads them)
      expect(result.files.map((f) => f.role)).toEqual(["video", "srt", "vtt"]);
      const [file] = result.files;
      expect(file).toMatchObject({ role: "video", contentType: "video/mp4" });
      const media = probe(file!.path);
      const video = media.streams.find((s) => s.codec_type === "video");
      expect(video).toMatchObject({ codec_name: "h264", width: 1080, height: 1920, pix_fmt: "yuv420p" });
      expect(media.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac");
      expect(media.duration).toBeLessThanOrEqual(25.05);
      expect(media.duration).toBeGreaterThan(10);
      expect(result.data).toMatchObject({
        note_id: ENGLISH_NOTE.note_id,
        title: "The Mekong River",
        language: "en",
      });
      expect(Math.abs((result.data.duration ?? 0) - media.duration)).toBeLessThan(0.15);
      expect(String(result.data.script)).toContain("Mekong");

      const progress = reports.map((r) => r.progress);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(95);
      expect(reports.map((r) => r.step)).toEqual(
        expect.arrayContaining(["writing_script", "synthesizing_voice", "rendering_video"]),
      );
      expect(reports.every((r) => Number.isInteger(r.estimated_time_sec) && r.estimated_time_sec >= 0)).toBe(
        true,
      );
      expect(reports.at(-1)?.estimated_time_sec).toBe(0);
    } finally {
      await result.cleanup();
    }
    await expect(stat(result.workDir)).rejects.toThrow();
  });

  it("burns captions that highlight each word within 150 ms of when it is spoken", async () => {
    const voice = VOICES.find((v) => v.voice_id === "en-male") as Voice;
    const workDir = await mkdtemp(join(root, "captions-"));
    const title = "Rivers of Asia.";
    const speech = await new EspeakSynthesizer().synthesize(
      `${title} The Mekong, a long river, flows through six countries. Floods bring rich sediment every year.`,
      voice,
      new AbortController().signal,
      join(workDir, "n.wav"),
    );
    const media = await renderShort({
      title: "Rivers of Asia",
      speech,
      titleWordCount: 3,
      bgId: "grid",
      clipDurationSec: 12,
      audioOnly: false,
      aspect: "9:16",
      workDir,
      tools: { ffmpeg: "ffmpeg" },
      signal: new AbortController().signal,
    });
    const events = assEvents(await readFile(media.assPath!, "utf8")).filter((e) => e.style === "Caption");
    const body = speech.words.slice(3);
    expect(events).toHaveLength(body.length);
    events.forEach((event, i) => {
      // The highlighted word is the one wrapped in the highlight colour override.
      const highlighted = /\\c&H0AD6FF&\\fscx112\\fscy112}([^{]+)\{/.exec(event.text)?.[1];
      expect(highlighted).toBe(body[i]?.text);
      expect(Math.abs(event.start - (body[i]?.start ?? 0))).toBeLessThanOrEqual(0.15);
      expect(event.end).toBeLessThanOrEqual(media.durationSec + 0.01);
    });
    // The title card covers the spoken title and is gone when the captions begin.
    const titleCard = assEvents(await readFile(media.assPath!, "utf8")).find((e) => e.style === "Title");
    expect(titleCard?.end).toBeLessThanOrEqual((events[0]?.start ?? 0) + 0.2);
    expect(titleCard?.end).toBeGreaterThanOrEqual((speech.words[2]?.end ?? 0) - 0.01);
    expect(probe(media.path).duration).toBeLessThanOrEqual(12.05);
  });

  it("says a title cut from the note's first sentence once: its card while it is spoken, then the captions", async () => {
    const note = UNTITLED_NOTE_EN;
    const title = note.title;
    const result = await runContentTask(
      { kind: "shorts", params: { note, voice_id: "en-male", clip_duration: 20, bg_id: "charcoal" } },
      deps(),
      recordingContext().ctx,
    );
    try {
      const script = String(result.data.script);
      expect(
        script.startsWith("Photosynthesis is the process by which green plants use sunlight to make food"),
      ).toBe(true);
      expect(script.split("Photosynthesis is the process").length - 1).toBe(1);

      const srt = result.files.find((f) => f.role === "srt")!.path;
      const cues = sidecarCues(srt);
      expect(cues[0]?.text.trim()).toBe(title);
      expect(spokenWords(cues[1]?.text ?? "")[0]).toBe("to");
      for (const [i, cue] of cues.entries()) {
        expect(cue.end, `cue ${i} overlaps the next`).toBeLessThanOrEqual(
          (cues[i + 1]?.start ?? cue.end) + 0.01,
        );
      }
      // Title card then captions say the narration once, word for word.
      const said = spokenWords(cues.map((cue) => cue.text).join(" "));
      expect(said).toEqual(spokenWords(script).slice(0, said.length));
      expect(said.length).toBeGreaterThan(20);
    } finally {
      await result.cleanup();
    }
  });

  it("makes an audio-only short: one AAC stream, no video, in the voice's language", async () => {
    const { ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "shorts",
        params: { note: VIETNAMESE_NOTE, voice_id: "vi-female", clip_duration: 15, is_audio_only: true },
      },
      deps(),
      ctx,
    );
    try {
      expect(result.files).toEqual([expect.objectContaining({ role: "audio", contentType: "audio/mp4" })]);
      const media = probe(result.files[0]!.path);
      expect(media.streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["audio:aac"]);
      expect(media.duration).toBeLessThanOrEqual(15.05);
      expect(result.data).toMatchObject({ language: "vi", is_audio_only: true });
      expect(String(result.data.script)).toContain("Sông Mê Kông");
    } finally {
      await result.cleanup();
    }
  });

  it("fails tts_unavailable without espeak-ng and leaves no temp files", async () => {
    const { ctx } = recordingContext();
    const tmpRoot = await mkdtemp(join(root, "missing-"));
    const error = await runContentTask(
      { kind: "shorts", params: { note: ENGLISH_NOTE, voice_id: "en-male" } },
      {
        ...deps(),
        tmpRoot,
        synthesizer: new EspeakSynthesizer({ binary: join(root, "nowhere", "espeak-ng") }),
      },
      ctx,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentError);
    expect(error).toMatchObject({ code: "tts_unavailable" });
    expect(await readdir(tmpRoot)).toEqual([]);
  });

  it("rejects invalid params with invalid_params", async () => {
    const { ctx } = recordingContext();
    await expect(
      runContentTask(
        { kind: "shorts", params: { note: ENGLISH_NOTE, voice_id: "en-male", bg_id: "stock" } },
        deps(),
        ctx,
      ),
    ).rejects.toMatchObject({ code: "invalid_params" });
  });

  it("an abort during rendering kills ffmpeg, rejects promptly and removes the temp folder", async () => {
    const controller = new AbortController();
    const tmpRoot = await mkdtemp(join(root, "abort-"));
    let abortScheduled = false;
    let abortedAt = 0;
    let ffmpegRanAtAbort = false;
    const pending = runContentTask(
      { kind: "shorts", params: { note: ENGLISH_NOTE, voice_id: "en-male", clip_duration: 60 } },
      { ...deps(), tmpRoot },
      {
        signal: controller.signal,
        report: (update) => {
          if (update.step !== "rendering_video" || abortScheduled) return;
          abortScheduled = true;
          // Let ffmpeg get going first.
          setTimeout(() => {
            ffmpegRanAtAbort = processesMentioning(tmpRoot).some((p) => p.includes("ffmpeg"));
            abortedAt = performance.now();
            controller.abort(new DOMException("task cancelled", "AbortError"));
          }, 300);
        },
      },
    );
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(ffmpegRanAtAbort).toBe(true);
    expect(performance.now() - abortedAt).toBeLessThan(2000);
    expect(processesMentioning(tmpRoot)).toEqual([]);
    expect(await readdir(tmpRoot)).toEqual([]);
  });
});
