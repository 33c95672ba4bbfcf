/**
 * Catalog previews as files: a PNG per background and per template, an MP3 sample per voice, and a
 * manifest.json naming them. Built offline (scripts/build-previews.ts); where they are served from
 * is the Worker's choice.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKGROUNDS, DEFAULT_BG_ID, previewFile, TEMPLATES, VOICES } from "../../protocol/content.ts";
import { LOCAL_INPUT_ARGS } from "../media/container-policy.ts";
import { backgroundGraph } from "./backgrounds.ts";
import { cardBoxFilters } from "./card-boxes.ts";
import type { DeckOutline } from "./deck.ts";
import { type RenderTools, runFfmpeg } from "./ffmpeg.ts";
import { BOLD_FONT_DIR, filterPath } from "./fonts.ts";
import { runTool } from "./process.ts";
import type { QuizQuestion } from "./quiz.ts";
import { QUIZ_HEIGHT, QUIZ_WIDTH, quizOverlay } from "./quiz-card.ts";
import { layoutDeck } from "./slides-layout.ts";
import { writePdf } from "./slides-pdf.ts";
import { quizTheme, slideTheme } from "./themes.ts";
import type { SpeechSynthesizer } from "./tts/synthesizer.ts";

const THUMB_WIDTH = 270;
const THUMB_HEIGHT = 480;

const VOICE_SAMPLES: Record<"en" | "vi", string> = {
  en: "Hi! I will read your notes aloud, one key idea at a time.",
  vi: "Xin chào! Tôi sẽ đọc ghi chú của bạn, từng ý chính một.",
};

const SAMPLE_QUESTION: QuizQuestion = {
  question: "Which river flows through six countries of Southeast Asia?",
  options: ["Mekong", "Amazon", "Danube", "Nile"],
  answer_index: 0,
  explanation: "The Mekong flows from the Tibetan Plateau to the South China Sea.",
};

const SAMPLE_DECK: DeckOutline = {
  language: "en",
  slides: [
    {
      kind: "title",
      title: "The Mekong River",
      subtitle: "Key points from the note",
      narration: "The Mekong River. Key points from the note.",
    },
    {
      kind: "content",
      heading: "Overview",
      bullets: [
        "One of the longest rivers in Asia.",
        "Flows through six countries.",
        "Feeds 60 million people.",
      ],
      narration:
        "The Mekong is one of the longest rivers in Asia. It flows through six countries and feeds 60 million people.",
    },
  ],
};

export interface PreviewManifest {
  backgrounds: { bg_id: string; file: string }[];
  templates: { template_id: string; file: string }[];
  voices: { voice_id: string; file: string }[];
}

export interface PreviewDeps {
  synthesizer: SpeechSynthesizer;
  tools: RenderTools;
  /** poppler's pdftoppm, for slide thumbnails (default on PATH). */
  pdftoppm?: string;
  signal: AbortSignal;
}

/**
 * Writes every preview into `outDir` and returns (and writes as manifest.json) what it made.
 *
 * @example
 * const manifest = await buildPreviews("public/previews", { synthesizer, tools, signal });
 */
export async function buildPreviews(outDir: string, deps: PreviewDeps): Promise<PreviewManifest> {
  await mkdir(outDir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "voxedge-previews-"));
  const { signal, tools } = deps;
  const manifest: PreviewManifest = { backgrounds: [], templates: [], voices: [] };
  const thumbSpec = { width: QUIZ_WIDTH, height: QUIZ_HEIGHT, fps: 1, durationSec: 3 };
  try {
    for (const bg of BACKGROUNDS) {
      const file = previewFile.background(bg.bg_id);
      await runFfmpeg(
        tools,
        [
          "-f",
          "lavfi",
          "-i",
          backgroundGraph(bg.bg_id, thumbSpec),
          "-ss",
          "2",
          "-frames:v",
          "1",
          "-vf",
          `scale=${THUMB_WIDTH}:${THUMB_HEIGHT}`,
          join(outDir, file),
        ],
        { signal },
      );
      manifest.backgrounds.push({ bg_id: bg.bg_id, file });
    }
    for (const template of TEMPLATES) {
      const file = previewFile.template(template.template_id);
      if (template.kind === "quiz_video") {
        const assPath = join(work, `${template.template_id}.ass`);
        const timeline = {
          introEnd: 0,
          questions: [{ askStart: 0, countdownStart: 0.5, revealStart: 3.5, end: 6 }],
          end: 6,
        };
        const overlay = quizOverlay("Preview", [SAMPLE_QUESTION], timeline, quizTheme(template.template_id));
        await writeFile(assPath, overlay.ass);
        const background = backgroundGraph(DEFAULT_BG_ID, thumbSpec, cardBoxFilters(overlay.boxes));
        const graph = `${background},ass=${filterPath(assPath)}:fontsdir=${filterPath(BOLD_FONT_DIR)},scale=${THUMB_WIDTH}:${THUMB_HEIGHT}`;
        await runFfmpeg(
          tools,
          ["-f", "lavfi", "-i", graph, "-ss", "1", "-frames:v", "1", join(outDir, file)],
          { signal },
        );
      } else {
        const pdfPath = join(work, `${template.template_id}.pdf`);
        await writePdf(
          layoutDeck(SAMPLE_DECK, slideTheme(template.template_id)),
          { title: "Preview", language: "en" },
          pdfPath,
        );
        // The content slide shows a template best; -scale-to sets the long side in pixels.
        const prefix = join(outDir, `template-${template.template_id}`);
        await runTool(
          deps.pdftoppm ?? "pdftoppm",
          ["-png", "-f", "2", "-l", "2", "-singlefile", "-scale-to", "480", pdfPath, prefix],
          {
            signal,
            missingCode: "slides_failed",
            failedCode: "slides_failed",
          },
        );
      }
      manifest.templates.push({ template_id: template.template_id, file });
    }
    for (const voice of VOICES) {
      const file = previewFile.voice(voice.voice_id);
      const speech = await deps.synthesizer.synthesize(
        VOICE_SAMPLES[voice.language],
        voice,
        signal,
        join(work, `${voice.voice_id}.wav`),
      );
      await runFfmpeg(
        tools,
        [
          ...LOCAL_INPUT_ARGS,
          "-i",
          speech.wavPath,
          "-c:a",
          "libmp3lame",
          "-b:a",
          "64k",
          "-ar",
          "22050",
          join(outDir, file),
        ],
        { signal },
      );
      manifest.voices.push({ voice_id: voice.voice_id, file });
    }
    await writeFile(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
