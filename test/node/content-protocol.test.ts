import { describe, expect, it } from "vitest";
import { backgroundGraph } from "../../inference-node/content/backgrounds.ts";
import { quizTheme, slideTheme } from "../../inference-node/content/themes.ts";
import { ESPEAK_VOICES } from "../../inference-node/content/tts/espeak.ts";
import {
  BACKGROUNDS,
  ContentJob,
  DEFAULT_BG_ID,
  DEFAULT_QUIZ_TEMPLATE_ID,
  parseSlideCountRange,
  QuizVideoParams,
  ShortsParams,
  SlideParams,
  TEMPLATES,
  VOICES,
} from "../../protocol/content.ts";
import { ENGLISH_NOTE } from "./content-helpers.ts";

describe("content protocol", () => {
  it("fills the documented defaults for shorts, quiz video and slides", () => {
    expect(ShortsParams.parse({ note: ENGLISH_NOTE, voice_id: "en-male" })).toMatchObject({
      clip_duration: 30,
      is_audio_only: false,
      bg_id: DEFAULT_BG_ID,
    });
    expect(QuizVideoParams.parse({ note: ENGLISH_NOTE, voice_id: "vi-female" })).toMatchObject({
      bg_id: DEFAULT_BG_ID,
      template_id: DEFAULT_QUIZ_TEMPLATE_ID,
    });
    expect(SlideParams.parse({ note: ENGLISH_NOTE, template_id: "slide-clean" })).toMatchObject({
      language: null,
      slide_count: { min: 5, max: 8 },
      community: false,
    });
  });

  it("rejects unknown ids, out-of-range durations and inverted slide ranges", () => {
    expect(ShortsParams.safeParse({ note: ENGLISH_NOTE, voice_id: "nobody" }).success).toBe(false);
    expect(
      ShortsParams.safeParse({ note: ENGLISH_NOTE, voice_id: "en-male", clip_duration: 4 }).success,
    ).toBe(false);
    expect(
      ShortsParams.safeParse({ note: ENGLISH_NOTE, voice_id: "en-male", clip_duration: 181 }).success,
    ).toBe(false);
    expect(
      ShortsParams.safeParse({ note: ENGLISH_NOTE, voice_id: "en-male", bg_id: "stock-video" }).success,
    ).toBe(false);
    // A slide template is not a quiz template and the other way round.
    expect(
      QuizVideoParams.safeParse({ note: ENGLISH_NOTE, voice_id: "en-male", template_id: "slide-clean" })
        .success,
    ).toBe(false);
    expect(SlideParams.safeParse({ note: ENGLISH_NOTE, template_id: "quiz-neon" }).success).toBe(false);
    expect(
      SlideParams.safeParse({
        note: ENGLISH_NOTE,
        template_id: "slide-clean",
        slide_count: { min: 9, max: 3 },
      }).success,
    ).toBe(false);
    expect(
      SlideParams.safeParse({
        note: ENGLISH_NOTE,
        template_id: "slide-clean",
        slide_count: { min: 1, max: 31 },
      }).success,
    ).toBe(false);
    expect(ContentJob.safeParse({ kind: "transcribe", params: {} }).success).toBe(false);
  });

  it("parses the wire form of slide_count_range", () => {
    expect(parseSlideCountRange("5-8")).toEqual({ min: 5, max: 8 });
    expect(parseSlideCountRange(" 1 - 30 ")).toEqual({ min: 1, max: 30 });
    expect(parseSlideCountRange("8-5")).toBeNull();
    expect(parseSlideCountRange("0-3")).toBeNull();
    expect(parseSlideCountRange("five")).toBeNull();
  });

  it("has the catalog the spec needs, and the node can render every entry", () => {
    for (const [language, gender] of [
      ["en", "male"],
      ["en", "female"],
      ["vi", "male"],
      ["vi", "female"],
    ]) {
      expect(VOICES.some((v) => v.language === language && v.gender === gender)).toBe(true);
    }
    for (const voice of VOICES) expect(ESPEAK_VOICES[voice.voice_id]).toBeTruthy();
    expect(BACKGROUNDS.length).toBeGreaterThanOrEqual(4);
    for (const bg of BACKGROUNDS)
      expect(backgroundGraph(bg.bg_id, { width: 1080, height: 1920, fps: 15, durationSec: 1 })).toContain(
        "scale=1080:1920",
      );
    expect(TEMPLATES.filter((t) => t.kind === "slide").length).toBeGreaterThanOrEqual(3);
    expect(TEMPLATES.filter((t) => t.kind === "quiz_video").length).toBeGreaterThanOrEqual(2);
    for (const t of TEMPLATES)
      expect(t.kind === "slide" ? slideTheme(t.template_id) : quizTheme(t.template_id)).toBeTruthy();
    const ids = [
      ...VOICES.map((v) => v.voice_id),
      ...BACKGROUNDS.map((b) => b.bg_id),
      ...TEMPLATES.map((t) => t.template_id),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });
});
