/**
 * Studio quality suite (#32 point 9), audio and video overviews: each rendered from one English and
 * one Vietnamese note through runContentTask (real espeak-ng, ffmpeg, poppler) and checked for what a
 * listener or viewer gets: lengths within the asked length's documented range (ffprobe), two voices
 * heard in a deep dive, the script's words and the captions' Vietnamese exact, a 1920x1080 H.264/AAC
 * video whose SRT and VTT ffmpeg reads, every cue inside the video.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import {
  type ContentDeps,
  type ContentResult,
  runContentTask,
} from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { medianPitch } from "./audio-pitch.ts";
import { pdfPages, pdfText, probe, recordingContext } from "./content-helpers.ts";
import { STUDIO_NOTE_EN, STUDIO_NOTE_VI } from "./fixtures/studio-notes-audio.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "studio-quality-audio-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const deps = (): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
});

const fileOf = (result: ContentResult, role: string) => {
  const file = result.files.find((f) => f.role === role);
  if (!file) throw new Error(`no ${role} file`);
  return file.path;
};

/** Seconds an overview of a note of ~150 words or more runs, by format and length (docs/api.md). */
const DURATION_RANGE = {
  brief: { short: [20, 60], default: [20, 95], long: [20, 120] },
  deep_dive: { short: [40, 90], default: [60, 120], long: [75, 180] },
} as const;

/** The note's sentences as written (headings left out). */
const noteSentences = (note: NoteSnapshot) =>
  note.content
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .flatMap((line) => line.split(/(?<=\.)\s+/));

/** The cues of a subtitle file as ffmpeg's own SRT/WebVTT demuxer reads them: start and end, seconds. */
function cueTimes(path: string): { start: number; end: number }[] {
  const out = execFileSync("ffprobe", [
    "-v",
    "error",
    "-show_entries",
    "packet=pts_time,duration_time",
    "-of",
    "json",
    path,
  ]).toString("utf8");
  const packets = (JSON.parse(out) as { packets: { pts_time: string; duration_time: string }[] }).packets;
  return packets.map((p) => ({
    start: Number(p.pts_time),
    end: Number(p.pts_time) + Number(p.duration_time),
  }));
}

/** The caption text of an SRT or VTT file, cue lines joined with spaces (numbers and times left out). */
async function captionText(path: string): Promise<string> {
  const lines = (await readFile(path, "utf8")).split("\n");
  return lines
    .filter((line) => line.trim() && !/^\d+$/.test(line) && !line.includes("-->") && line !== "WEBVTT")
    .join(" ");
}

describe.each([
  ["English", STUDIO_NOTE_EN, "deep_dive", "default"],
  ["Vietnamese", STUDIO_NOTE_VI, "deep_dive", "short"],
  ["English", STUDIO_NOTE_EN, "brief", "short"],
  ["Vietnamese", STUDIO_NOTE_VI, "brief", "long"],
] as const)("audio overview of the %s note, %s %s", (_name, note: NoteSnapshot, format, length) => {
  let result: ContentResult;
  beforeAll(async () => {
    result = await runContentTask(
      { kind: "podcast", params: { note, format, length } },
      deps(),
      recordingContext().ctx,
    );
  }, 120_000);
  afterAll(() => result.cleanup());

  it("plays for the asked length's range, as M4A and MP3 alike", () => {
    const [min, max] = DURATION_RANGE[format][length];
    for (const role of ["audio", "audio_mp3"]) {
      const { duration } = probe(fileOf(result, role));
      expect(duration, role).toBeGreaterThanOrEqual(min);
      expect(duration, role).toBeLessThanOrEqual(max);
      expect(Math.abs(duration - (result.data.duration ?? 0)), role).toBeLessThan(0.3);
    }
  });

  it("is heard in the voices it names: two hosts a pitch tracker tells apart in a deep dive", async () => {
    const script = JSON.parse(await readFile(fileOf(result, "json"), "utf8")) as {
      lines: { host: string; start: number; end: number }[];
    };
    const hosts = new Set(script.lines.map((line) => line.host));
    if (format === "brief") {
      expect(hosts).toEqual(new Set(["A"]));
      return;
    }
    expect(hosts).toEqual(new Set(["A", "B"]));
    const first = (host: string) => script.lines.find((line) => line.host === host)!;
    const a = first("A");
    const b = first("B");
    // host A is the language's female voice, host B its male one
    expect(medianPitch(fileOf(result, "audio"), a.start, a.end)).toBeGreaterThan(
      medianPitch(fileOf(result, "audio"), b.start, b.end) * 1.3,
    );
  });

  it("writes the script a reader can follow: the note's own sentences, diacritics exact, timed", async () => {
    const text = await readFile(fileOf(result, "txt"), "utf8");
    expect(text.startsWith(`${note.title}\n`)).toBe(true);
    expect(noteSentences(note).filter((sentence) => text.includes(sentence)).length).toBeGreaterThanOrEqual(
      2,
    );
    expect(text).toBe(text.normalize("NFC"));
    if (note.language === "vi") expect(text).toMatch(/[ạảãàáâậầấẩẫăắằặẳẵđêềếệểễôồốộổỗơờớợởỡưừứựửữ]/);
    const stamps = [...text.matchAll(/^\[(\d\d):(\d\d\.\d)\]/gm)].map(
      (m) => Number(m[1]) * 60 + Number(m[2]),
    );
    expect(stamps.length).toBeGreaterThan(2);
    expect(Math.max(...stamps)).toBeLessThanOrEqual(result.data.duration ?? 0);
  });
});

describe.each([
  ["English", STUDIO_NOTE_EN],
  ["Vietnamese", STUDIO_NOTE_VI],
] as const)("video overview of the %s note", (_name, note: NoteSnapshot) => {
  let result: ContentResult;
  beforeAll(async () => {
    result = await runContentTask(
      { kind: "video_overview", params: { note } },
      deps(),
      recordingContext().ctx,
    );
  }, 300_000);
  afterAll(() => result.cleanup());

  it("is a 1920x1080 H.264/AAC video as long as its narration", () => {
    const video = probe(fileOf(result, "video"));
    expect(video.streams.map((s) => `${s.codec_type}:${s.codec_name}`).sort()).toEqual([
      "audio:aac",
      "video:h264",
    ]);
    expect(video.streams.find((s) => s.codec_type === "video")).toMatchObject({ width: 1920, height: 1080 });
    expect(Math.abs(video.duration - (result.data.duration ?? 0))).toBeLessThan(0.25);
    // a ~150-word note narrated in full, about a minute
    expect(video.duration).toBeGreaterThan(30);
    expect(video.duration).toBeLessThan(150);
  });

  it("has SRT and VTT captions ffmpeg reads, every cue inside the video, the note's words exact", async () => {
    const duration = probe(fileOf(result, "video")).duration;
    for (const role of ["srt", "vtt"]) {
      const cues = cueTimes(fileOf(result, role));
      expect(cues.length, role).toBeGreaterThan(5);
      for (const cue of cues) {
        expect(cue.end, role).toBeGreaterThan(cue.start);
        expect(cue.end, role).toBeLessThanOrEqual(duration + 0.05);
      }
    }
    const captions = await captionText(fileOf(result, "srt"));
    expect(await captionText(fileOf(result, "vtt"))).toBe(captions);
    const flat = captions.replace(/\s+/g, " ");
    expect(noteSentences(note).filter((sentence) => flat.includes(sentence)).length).toBeGreaterThanOrEqual(
      3,
    );
    expect(flat).toBe(flat.normalize("NFC"));
  });

  it("comes with the deck's PDF, one page per slide, its title on the first", () => {
    const pdf = fileOf(result, "pdf");
    expect(pdfPages(pdf)).toBe(result.data.slide_count);
    expect(pdfText(pdf).replace(/\s+/g, " ")).toContain(note.title);
  });
});
