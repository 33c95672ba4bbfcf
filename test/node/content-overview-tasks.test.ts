/**
 * Audio and video overviews as task kinds, through runContentTask (the node's one content entry point)
 * with real espeak-ng, ffmpeg and poppler: the files each kind lists, opened with ffprobe, pdfinfo and
 * a JSON parser; the steps it reports; its result data; the script from a chat model (a local
 * OpenAI-compatible server); the note translated first when another language is asked (a local
 * LibreTranslate-compatible server). What the renders sound and look like is checked in
 * content-podcast.test.ts, content-video-overview.test.ts and studio-quality-audio.test.ts.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { llmConfigFromEnv } from "../../inference-node/content/llm.ts";
import { StageSpeeds } from "../../inference-node/content/progress.ts";
import {
  type ContentDeps,
  type ContentResult,
  runContentTask,
} from "../../inference-node/content/run-content-task.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { createTranslator } from "../../inference-node/translate/config.ts";
import { ENGLISH_NOTE, pdfPages, probe, recordingContext } from "./content-helpers.ts";
import { type FakeServer, libreTranslateHandler, sendJson, startServer } from "./translate-fake-servers.ts";

let root: string;
let libre: FakeServer;
let chat: FakeServer;
let chatAnswer = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-overview-tasks-"));
  libre = await startServer(libreTranslateHandler());
  chat = await startServer((req, res) => {
    if (req.path !== "/v1/chat/completions") return sendJson(res, 404, {});
    sendJson(res, 200, { choices: [{ index: 0, message: { role: "assistant", content: chatAnswer } }] });
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await libre.close();
  await chat.close();
});

const deps = (extra: Partial<ContentDeps> = {}): ContentDeps => ({
  synthesizer: new EspeakSynthesizer(),
  tools: { ffmpeg: "ffmpeg" },
  llm: null,
  speeds: new StageSpeeds(),
  tmpRoot: root,
  ...extra,
});

const translating = () =>
  deps({
    translate: (text, from, to, signal) =>
      createTranslator({ backend: "libretranslate", url: libre.url })!.translate(text, from, to, signal),
  });

/** The steps in the order they were first reported, and whether progress only went up. */
function stepsOf(reports: { step: string; progress: number }[]) {
  const steps = reports.map((r) => r.step).filter((step, i, all) => step !== all[i - 1]);
  const rising = reports.every((r, i) => i === 0 || r.progress >= (reports[i - 1]?.progress ?? 0));
  return { steps, rising };
}

const fileOf = (result: ContentResult, role: string) => {
  const file = result.files.find((f) => f.role === role);
  if (!file) throw new Error(`no ${role} file`);
  return file.path;
};

describe("podcast task", () => {
  it("renders a deep dive: M4A, MP3, script JSON and text, with its data and steps", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      { kind: "podcast", params: { note: ENGLISH_NOTE, length: "short" } },
      deps(),
      ctx,
    );
    try {
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["audio", "audio/mp4"],
        ["audio_mp3", "audio/mpeg"],
        ["json", "application/json"],
        ["txt", "text/plain"],
      ]);
      expect(probe(fileOf(result, "audio")).streams.find((s) => s.codec_type === "audio")?.codec_name).toBe(
        "aac",
      );
      const mp3 = probe(fileOf(result, "audio_mp3"));
      expect(Math.abs(mp3.duration - (result.data.duration ?? 0))).toBeLessThan(0.3);
      const script = JSON.parse(await readFile(fileOf(result, "json"), "utf8")) as {
        format: string;
        voices: Record<string, string>;
        lines: { host: string }[];
      };
      expect(script).toMatchObject({ format: "deep_dive", voices: { A: "en-female", B: "en-male" } });
      expect(result.data).toMatchObject({
        note_id: ENGLISH_NOTE.note_id,
        title: "The Mekong River",
        language: "en",
        format: "deep_dive",
        length: "short",
        voices: { A: "en-female", B: "en-male" },
        text_source: "extractive",
      });
      expect((result.data.chapters as { title: string }[]).at(-1)?.title).toBe("Recap");
      expect(await readFile(fileOf(result, "txt"), "utf8")).toMatch(/^\[00:00\.0\] Emma: Welcome/m);
      const { steps, rising } = stepsOf(reports);
      expect(steps).toEqual(["writing_script", "synthesizing_voice", "rendering_audio"]);
      expect(rising).toBe(true);
    } finally {
      await result.cleanup();
    }
  });

  it("speaks a chat model's brief when the node has one", async () => {
    chatAnswer = JSON.stringify({
      lines: [
        { host: "A", text: "Here is the Mekong in brief.", chapter: "Welcome" },
        { host: "A", text: "It feeds sixty million people.", chapter: "People" },
      ],
    });
    const llm = llmConfigFromEnv({ VOXEDGE_LLM_URL: chat.url, VOXEDGE_LLM_MODEL: "local" });
    const result = await runContentTask(
      { kind: "podcast", params: { note: ENGLISH_NOTE, format: "brief", voice_id: "en-male" } },
      deps({ llm }),
      recordingContext().ctx,
    );
    try {
      expect(result.data).toMatchObject({ text_source: "llm", voices: { A: "en-male" } });
      expect((result.data.chapters as { title: string }[]).map((c) => c.title)).toEqual([
        "Welcome",
        "People",
      ]);
      expect(await readFile(fileOf(result, "txt"), "utf8")).toContain(
        "Ethan: It feeds sixty million people.",
      );
    } finally {
      await result.cleanup();
    }
  });

  it("translates the note first when asked in another language; refuses voices that cannot read it", async () => {
    const params = { note: ENGLISH_NOTE, format: "brief", length: "short", language: "vi" };
    await expect(
      runContentTask({ kind: "podcast", params }, deps(), recordingContext().ctx),
    ).rejects.toMatchObject({ code: "translation_unavailable" });
    await expect(
      runContentTask(
        { kind: "podcast", params: { ...params, voice_id: "en-female" } },
        translating(),
        recordingContext().ctx,
      ),
    ).rejects.toMatchObject({ code: "invalid_params" });

    const { reports, ctx } = recordingContext();
    const result = await runContentTask({ kind: "podcast", params }, translating(), ctx);
    try {
      expect(result.data).toMatchObject({ language: "vi", voices: { A: "vi-female" } });
      // The fake LibreTranslate tags what it translated: the host reads the translated note.
      expect(await readFile(fileOf(result, "txt"), "utf8")).toContain("<vi>");
      expect(stepsOf(reports).steps).toEqual([
        "translating",
        "writing_script",
        "synthesizing_voice",
        "rendering_audio",
      ]);
    } finally {
      await result.cleanup();
    }
  });
});

describe("video overview task", () => {
  it("renders the narrated deck: MP4, SRT, VTT and the deck's PDF, with its data and steps", async () => {
    const { reports, ctx } = recordingContext();
    const result = await runContentTask(
      {
        kind: "video_overview",
        params: { note: ENGLISH_NOTE, template_id: "slide-midnight", voice_id: "en-gb-male" },
      },
      deps(),
      ctx,
    );
    try {
      expect(result.files.map((f) => [f.role, f.contentType])).toEqual([
        ["video", "video/mp4"],
        ["srt", "application/x-subrip"],
        ["vtt", "text/vtt"],
        ["pdf", "application/pdf"],
      ]);
      const video = probe(fileOf(result, "video"));
      expect(video.streams.find((s) => s.codec_type === "video")).toMatchObject({
        codec_name: "h264",
        width: 1920,
        height: 1080,
      });
      expect(Math.abs(video.duration - (result.data.duration ?? 0))).toBeLessThan(0.25);
      expect(pdfPages(fileOf(result, "pdf"))).toBe(result.data.slide_count);
      expect(await readFile(fileOf(result, "vtt"), "utf8")).toMatch(/^WEBVTT/);
      expect(result.data).toMatchObject({
        note_id: ENGLISH_NOTE.note_id,
        language: "en",
        template_id: "slide-midnight",
        voice_id: "en-gb-male",
        text_source: "extractive",
      });
      const { steps, rising } = stepsOf(reports);
      expect(steps).toEqual(["building_slides", "synthesizing_voice", "rendering_video"]);
      expect(rising).toBe(true);
    } finally {
      await result.cleanup();
    }
  }, 300_000);

  it("refuses a narrator of another language before rendering anything", async () => {
    await expect(
      runContentTask(
        { kind: "video_overview", params: { note: ENGLISH_NOTE, voice_id: "vi-male" } },
        deps(),
        recordingContext().ctx,
      ),
    ).rejects.toMatchObject({ code: "invalid_params" });
  });
});
