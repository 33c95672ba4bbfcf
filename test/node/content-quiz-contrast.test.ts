/**
 * The quiz video's title card, looked at: on the rendered frame, the title's text against the card
 * behind it reaches WCAG AA (4.5:1, the ratio for normal text, though the title is large), for each
 * quiz template over the lightest and the darkest background.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderQuiz } from "../../inference-node/content/render-quiz.ts";
import { quizTheme } from "../../inference-node/content/themes.ts";
import { EspeakSynthesizer } from "../../inference-node/content/tts/espeak.ts";
import { VOICES } from "../../protocol/content.ts";

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "content-contrast-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** WCAG 2 relative luminance of an sRGB colour (0..255 channels). */
function luminance(r: number, g: number, b: number): number {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * The title card's contrast on one frame: the card is the region's most common luminance; the text is
 * what is distinct from it (a contrast of 1.1 or more) among the darkest and the lightest 0.5 % of the
 * pixels (the glyphs' solid cores; anti-aliased edges lie between). Where glyphs have two colours (a
 * fill and an outline), both count and the weaker decides: white letters outlined in black on a white
 * card are read by their outline alone, which is not AA.
 */
function titleContrast(video: string, atSec: number): number {
  const box = { x: 90, y: 640, w: 900, h: 640 };
  const rgb = execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-ss",
      atSec.toFixed(2),
      "-i",
      video,
      "-frames:v",
      "1",
      "-vf",
      `crop=${box.w}:${box.h}:${box.x}:${box.y}`,
      "-f",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "pipe:1",
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const values: number[] = [];
  for (let i = 0; i + 2 < rgb.length; i += 3)
    values.push(luminance(rgb[i] ?? 0, rgb[i + 1] ?? 0, rgb[i + 2] ?? 0));
  values.sort((a, b) => a - b);
  const card = values[Math.floor(values.length / 2)] ?? 0;
  const ratio = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  const extremes = [
    values[Math.floor(values.length * 0.005)] ?? 0,
    values[Math.floor(values.length * 0.995)] ?? 0,
  ];
  const text = extremes.map((value) => ratio(value, card)).filter((r) => r >= 1.1);
  return text.length > 0 ? Math.min(...text) : 1;
}

describe("quiz title card contrast", () => {
  const voice = VOICES.find((v) => v.voice_id === "en-male");
  for (const templateId of ["quiz-classic", "quiz-neon"]) {
    for (const bgId of ["sunset", "charcoal"]) {
      it(`${templateId} over ${bgId}: the title reaches 4.5:1 against its card`, async () => {
        if (!voice) throw new Error("no en-male voice in the catalog");
        const workDir = await mkdtemp(join(root, `${templateId}-${bgId}-`));
        const media = await renderQuiz({
          title: "The Mekong River",
          spokenTitle: "The Mekong River",
          questions: [
            {
              question: "Where does the Mekong end?",
              options: ["The South China Sea", "The Bay of Bengal", "The Gulf of Thailand", "The Java Sea"],
              answer_index: 0,
              explanation: "It flows into the South China Sea.",
            },
          ],
          language: "en",
          voice,
          synthesizer: new EspeakSynthesizer(),
          theme: quizTheme(templateId),
          bgId,
          workDir,
          tools: { ffmpeg: "ffmpeg" },
          signal: new AbortController().signal,
        });
        expect(media.timeline.introEnd).toBeGreaterThan(0.8);
        expect(titleContrast(media.path, 0.8)).toBeGreaterThanOrEqual(4.5);
      });
    }
  }
});
