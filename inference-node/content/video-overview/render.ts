/**
 * A video overview: the note's slide deck, narrated. Each slide is on screen while its narration (its
 * speaker notes: whole sentences of the note) is spoken, with a short lead-in and tail; the narration
 * is captioned, burned in and as an SRT/VTT sidecar from the same cues; 1920x1080 H.264/AAC. The
 * slides are the deck's own pages (the PDF rendered by poppler), so the video shows what the deck
 * downloads show.
 */
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { NoteSnapshot, Voice } from "../../../protocol/content.ts";
import { type Cue, LABELLED, toSrt, toVtt } from "../../../protocol/subtitles.ts";
import { type AssEvent, assDocument, assText } from "../ass.ts";
import { type DeckOutline, outlineDeck, translateOutline } from "../deck.ts";
import { ContentError } from "../errors.ts";
import { AAC_ARGS, H264_ARGS, type RenderTools, runFfmpeg, VIDEO_FPS } from "../ffmpeg.ts";
import { BOLD_FONT_DIR, filterPath } from "../fonts.ts";
import { runTool } from "../process.ts";
import type { ContentLanguage, TranslateFn } from "../script.ts";
import { layoutDeck } from "../slides-layout.ts";
import { writePdf } from "../slides-pdf.ts";
import { slideTheme } from "../themes.ts";
import type { SpeechSynthesizer } from "../tts/synthesizer.ts";
import { concatPcm, readWav, resample, writeWav } from "../tts/wav.ts";
import { narrationCues } from "./cues.ts";

export const OVERVIEW_WIDTH = 1920;
export const OVERVIEW_HEIGHT = 1080;
/** Slides a video overview has: a title, content, a summary. */
const SLIDE_RANGE = { min: 3, max: 8 };
const SAMPLE_RATE = 22_050;
/** Silence before a slide's narration (the slide appears first) and after it (it settles). */
const LEAD_SEC = 0.4;
const TAIL_SEC = 0.6;

export interface VideoOverviewRender {
  note: NoteSnapshot;
  /** The overview's language; the note's own when it is the same, else translated. */
  language: ContentLanguage;
  templateId: string;
  voice: Voice;
  synthesizer: SpeechSynthesizer;
  tools: RenderTools & { pdftoppm?: string };
  translate?: TranslateFn;
  /** Made from a published community note: the title slide says so. */
  community?: boolean;
  workDir: string;
  signal: AbortSignal;
  /** The deck's size once it is outlined: its slides and the characters its narration has. */
  onOutline?: (size: { slides: number; narrationChars: number }) => void;
  /** How far each phase is (0..1): the deck's pages drawn, the slides narrated, the video encoded. */
  onProgress?: (phase: OverviewPhase, fraction: number) => void;
}

export type OverviewPhase = "slides" | "narration" | "video";

export interface VideoOverview {
  videoPath: string;
  srtPath: string;
  vttPath: string;
  pdfPath: string;
  durationSec: number;
  /** When each slide is on screen. */
  slides: { start: number; end: number; narration: string }[];
  cues: Cue[];
}

/**
 * Renders the overview.
 *
 * @example
 * const video = await renderVideoOverview({ note, language: "en", templateId: "slide-clean", voice, synthesizer, tools, workDir, signal });
 */
export async function renderVideoOverview(input: VideoOverviewRender): Promise<VideoOverview> {
  if (input.voice.language !== input.language) {
    throw new ContentError(
      "invalid_params",
      `voice_id "${input.voice.voice_id}" speaks ${input.voice.language}, the overview is in ${input.language}`,
    );
  }
  const outline = await overviewOutline(input);
  input.onOutline?.({
    slides: outline.slides.length,
    narrationChars: outline.slides.reduce((sum, slide) => sum + slide.narration.length, 0),
  });
  const layouts = layoutDeck(outline, slideTheme(input.templateId));
  const pdfPath = join(input.workDir, "slides.pdf");
  await writePdf(layouts, { title: input.note.title, language: input.language }, pdfPath);
  const images = await slideImages(input, pdfPath, layouts.length);
  input.onProgress?.("slides", 1);

  const pieces: (Int16Array | number)[] = [];
  const slides: VideoOverview["slides"] = [];
  const cues: Cue[] = [];
  let at = 0;
  for (const [index, slide] of outline.slides.entries()) {
    const speech = await input.synthesizer.synthesize(
      slide.narration,
      input.voice,
      input.signal,
      join(input.workDir, `narration-${index}.wav`),
    );
    const pcm = resample(await readWav(speech.wavPath), SAMPLE_RATE);
    const spoken = pcm.samples.length / SAMPLE_RATE;
    cues.push(...narrationCues(speech.words, at + LEAD_SEC));
    pieces.push(LEAD_SEC, pcm.samples, TAIL_SEC);
    const end = at + LEAD_SEC + spoken + TAIL_SEC;
    slides.push({ start: round(at), end: round(end), narration: slide.narration });
    at = end;
    input.onProgress?.("narration", (index + 1) / outline.slides.length);
  }
  const durationSec = round(at);
  const wavPath = join(input.workDir, "narration.wav");
  await writeWav(wavPath, concatPcm(SAMPLE_RATE, pieces));

  const assPath = join(input.workDir, "captions.ass");
  await writeFile(assPath, captionsAss(cues));
  const srtPath = join(input.workDir, "captions.srt");
  const vttPath = join(input.workDir, "captions.vtt");
  await writeFile(srtPath, toSrt(cues, LABELLED));
  await writeFile(vttPath, toVtt(cues, LABELLED));

  const videoPath = join(input.workDir, "overview.mp4");
  const inputs = images.flatMap((image, i) => {
    const slide = slides[i];
    const seconds = slide ? slide.end - slide.start : 1;
    return ["-loop", "1", "-framerate", String(VIDEO_FPS), "-t", seconds.toFixed(3), "-i", image];
  });
  const joined = images.map((_, i) => `[${i}:v]`).join("");
  const graph =
    `${joined}concat=n=${images.length}:v=1:a=0,scale=${OVERVIEW_WIDTH}:${OVERVIEW_HEIGHT},format=yuv420p,` +
    `ass=${filterPath(assPath)}:fontsdir=${filterPath(BOLD_FONT_DIR)}[v]`;
  await runFfmpeg(
    input.tools,
    [
      ...inputs,
      "-i",
      wavPath,
      "-filter_complex",
      graph,
      "-map",
      "[v]",
      "-map",
      `${images.length}:a`,
      "-t",
      durationSec.toFixed(3),
      "-r",
      String(VIDEO_FPS),
      ...H264_ARGS,
      ...AAC_ARGS,
      "-movflags",
      "+faststart",
      videoPath,
    ],
    {
      signal: input.signal,
      durationSec,
      onProgress: (fraction) => input.onProgress?.("video", fraction),
    },
  );
  return { videoPath, srtPath, vttPath, pdfPath, durationSec, slides, cues };
}

async function overviewOutline(input: VideoOverviewRender): Promise<DeckOutline> {
  const outline = outlineDeck(input.note, SLIDE_RANGE, input.community ?? false);
  if (outline.language === input.language) return outline;
  return translateOutline(outline, input.language, input.translate, input.signal);
}

/** The deck's pages as 1920x1080 PNGs, in page order. */
async function slideImages(input: VideoOverviewRender, pdfPath: string, count: number): Promise<string[]> {
  const prefix = join(input.workDir, "slide");
  await runTool(
    input.tools.pdftoppm ?? "pdftoppm",
    ["-png", "-scale-to-x", String(OVERVIEW_WIDTH), "-scale-to-y", String(OVERVIEW_HEIGHT), pdfPath, prefix],
    { signal: input.signal, missingCode: "slides_failed", failedCode: "slides_failed" },
  );
  const pages = (await readdir(input.workDir))
    .filter((name) => /^slide-\d+\.png$/.test(name))
    .sort((a, b) => Number(/(\d+)/.exec(a)?.[1]) - Number(/(\d+)/.exec(b)?.[1]));
  if (pages.length !== count) {
    throw new ContentError(
      "slides_failed",
      `the deck has ${count} slides but ${pages.length} pages were drawn`,
    );
  }
  return pages.map((name) => join(input.workDir, name));
}

/** The cues burned in: bottom centre, white on a dark translucent box, two lines at most. */
function captionsAss(cues: readonly Cue[]): string {
  const events: AssEvent[] = cues.map((cue) => ({
    start: cue.start,
    end: cue.end,
    style: "Caption",
    text: assText(cue.text),
  }));
  return assDocument(
    OVERVIEW_WIDTH,
    OVERVIEW_HEIGHT,
    [
      {
        name: "Caption",
        size: 56,
        color: "FFFFFF",
        outline: 3,
        outlineColor: "111111",
        alignment: 2,
        marginV: 48,
        marginH: 220,
      },
    ],
    events,
  );
}

const round = (sec: number) => Math.round(sec * 1000) / 1000;
