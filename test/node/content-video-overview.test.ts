/**
 * Video overviews end to end (real espeak-ng, poppler and ffmpeg), looked at: the file plays as
 * 1920x1080 H.264/AAC for the narration's length, each slide is the picture on screen while its
 * narration plays (frames compared with the deck's own pages), the captions are burned in where they
 * are spoken, and the SRT/VTT sidecar carries the same words, Vietnamese diacritics exact.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import {
  renderVideoOverview,
  type VideoOverview,
} from "../../inference-node/content/video-overview/render.ts";
import { VOICES } from "../../protocol/content.ts";
import { ENGLISH_NOTE, probe, VIETNAMESE_NOTE } from "./content-helpers.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-overview-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const voice = (id: string) => {
  const found = VOICES.find((v) => v.voice_id === id);
  if (!found) throw new Error(`no voice ${id}`);
  return found;
};

async function render(note: typeof ENGLISH_NOTE, language: "en" | "vi", voiceId: string) {
  const workDir = await mkdtemp(join(root, `${language}-`));
  const video = await renderVideoOverview({
    note,
    language,
    templateId: "slide-clean",
    voice: voice(voiceId),
    synthesizer: new EspeakSynthesizer(),
    tools: { ffmpeg: "ffmpeg" },
    workDir,
    signal: new AbortController().signal,
  });
  return { video, workDir };
}

/** A picture as 192x108 grey levels (a frame of the video at `atSec`, or an image file). */
function grey(path: string, atSec?: number): Uint8Array {
  const seek = atSec === undefined ? [] : ["-ss", atSec.toFixed(2)];
  return execFileSync("ffmpeg", [
    "-v",
    "error",
    ...seek,
    "-i",
    path,
    "-frames:v",
    "1",
    "-vf",
    "scale=192:108,format=gray",
    "-f",
    "rawvideo",
    "pipe:1",
  ]);
}

/** Mean absolute difference of two grey pictures over rows [fromRow, toRow). */
function difference(a: Uint8Array, b: Uint8Array, fromRow: number, toRow: number): number {
  let sum = 0;
  for (let i = fromRow * 192; i < toRow * 192; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / ((toRow - fromRow) * 192);
}

describe("video overview", () => {
  let english: { video: VideoOverview; workDir: string };
  beforeAll(async () => {
    english = await render(ENGLISH_NOTE, "en", "en-female");
  }, 120_000);

  it("plays as 1920x1080 H.264/AAC for the narration's whole length", () => {
    const { video } = english;
    const media = probe(video.videoPath);
    expect(media.streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort()).toEqual([
      "audio:aac",
      "video:h264",
    ]);
    expect(media.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 1920, height: 1080 });
    expect(Math.abs(media.duration - video.durationSec)).toBeLessThan(0.25);
    expect(video.slides.length).toBeGreaterThanOrEqual(3);
    expect(video.slides.at(-1)?.end).toBeCloseTo(video.durationSec, 2);
  });

  it("shows each slide while its narration plays", () => {
    const { video, workDir } = english;
    const pages = video.slides.map((_, i) => grey(join(workDir, `slide-${i + 1}.png`)));
    video.slides.forEach((slide, i) => {
      const frame = grey(video.videoPath, (slide.start + slide.end) / 2);
      // the top 80 %: the captions are drawn below it
      const own = difference(frame, pages[i]!, 0, 86);
      const others = pages.filter((_, j) => j !== i).map((page) => difference(frame, page, 0, 86));
      expect(own, `slide ${i + 1}`).toBeLessThan(6);
      expect(own, `slide ${i + 1}`).toBeLessThan(Math.min(...others));
    });
  });

  it("burns the captions in while they are spoken, and writes the same cues as SRT and VTT", async () => {
    const { video, workDir } = english;
    const cue = video.cues[Math.floor(video.cues.length / 2)]!;
    const slide = video.slides.findIndex((s) => s.start <= cue.start && cue.end <= s.end);
    const page = grey(join(workDir, `slide-${slide + 1}.png`));
    const withCaption = grey(video.videoPath, (cue.start + cue.end) / 2);
    expect(difference(withCaption, page, 90, 108)).toBeGreaterThan(4);

    const srt = await readFile(video.srtPath, "utf8");
    const blocks = srt.trim().split("\n\n");
    expect(blocks).toHaveLength(video.cues.length);
    expect(blocks[0]).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n/);
    for (const c of video.cues) expect(c.end).toBeLessThanOrEqual(video.durationSec);
    const vtt = await readFile(video.vttPath, "utf8");
    expect(vtt.startsWith("WEBVTT")).toBe(true);
    const spoken = video.slides.map((s) => s.narration).join(" ");
    const captioned = video.cues.map((c) => c.text).join(" ");
    expect(captioned.split(/\s+/).length).toBeGreaterThan(spoken.split(/\s+/).length * 0.8);
    expect(srt).toContain("giant catfish");
  });

  it("captions a Vietnamese overview with every diacritic, and refuses a voice of another language", async () => {
    const { video } = await render(VIETNAMESE_NOTE, "vi", "vi-male");
    const srt = await readFile(video.srtPath, "utf8");
    expect(srt).toContain("vựa lúa lớn nhất Việt Nam.");
    expect(video.slides.some((s) => s.narration.includes("Đồng bằng sông Cửu Long"))).toBe(true);
    await expect(render(VIETNAMESE_NOTE, "vi", "en-male")).rejects.toMatchObject({ code: "invalid_params" });
  });
});
