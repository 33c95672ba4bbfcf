/**
 * A quiz video: an intro, then per question the narrated question card, a 3-2-1 countdown with
 * ticks, and the narrated reveal with a chime. Narration segments are synthesized one by one and
 * laid on a single timeline in memory, so the cards, the countdown and the sound line up exactly.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Voice } from "../../protocol/content.ts";
import type { Cue } from "../../protocol/subtitles.ts";
import { backgroundGraph } from "./backgrounds.ts";
import { cardBoxFilters } from "./card-boxes.ts";
import { compositionArgs, type RenderTools, runFfmpeg, VIDEO_FPS } from "./ffmpeg.ts";
import { BLANK, type QuizQuestion } from "./quiz.ts";
import { LETTERS, QUIZ_HEIGHT, QUIZ_WIDTH, type QuizTimeline, quizOverlay } from "./quiz-card.ts";
import type { RenderedMedia } from "./render-short.ts";
import type { ContentLanguage } from "./script.ts";
import { asSentence } from "./text.ts";
import type { QuizTheme } from "./themes.ts";
import type { SpeechSynthesizer, WordTiming } from "./tts/synthesizer.ts";
import { type Pcm, readWav, resample, writeWav } from "./tts/wav.ts";
import { narrationCues } from "./video-overview/cues.ts";

const COUNTDOWN_SEC = 3;
const AFTER_SPEECH_SEC = 0.4;
const SAMPLE_RATE = 24_000;

const WORDS: Record<ContentLanguage, { intro: string; question: string; blank: string; answer: string }> = {
  en: { intro: "Quiz time", question: "Question", blank: "blank", answer: "The answer is" },
  vi: { intro: "Cùng làm trắc nghiệm", question: "Câu hỏi", blank: "chỗ trống", answer: "Đáp án là" },
};

/** What is said for each part: the intro, then per question the ask and the reveal. */
export function quizNarration(
  title: string,
  questions: readonly QuizQuestion[],
  language: ContentLanguage,
): string[] {
  const w = WORDS[language];
  return [
    asSentence(`${w.intro}: ${title}`),
    ...questions.flatMap((q, i) => [
      asSentence(`${w.question} ${i + 1}. ${q.question.replaceAll(BLANK, w.blank)}`),
      `${asSentence(`${w.answer} ${LETTERS[q.answer_index]}, ${q.options[q.answer_index]}`)} ${asSentence(q.explanation)}`,
    ]),
  ];
}

/** A short sine tone with a fade-out, mixed into `samples` at `atSec`. */
function addTone(samples: Int16Array, atSec: number, hz: number, lengthSec: number, gain: number): void {
  const start = Math.round(atSec * SAMPLE_RATE);
  const length = Math.round(lengthSec * SAMPLE_RATE);
  for (let i = 0; i < length && start + i < samples.length; i += 1) {
    const envelope = 1 - i / length;
    const value =
      (samples[start + i] ?? 0) + Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE) * gain * envelope * 32767;
    samples[start + i] = Math.max(-32768, Math.min(32767, Math.round(value)));
  }
}

export interface QuizRender {
  /** On the intro card. */
  title: string;
  /** Said over it ("Quiz time: …"): the title, or what an untitled note is about (spokenTitle). */
  spokenTitle: string;
  questions: readonly QuizQuestion[];
  language: ContentLanguage;
  voice: Voice;
  synthesizer: SpeechSynthesizer;
  theme: QuizTheme;
  bgId: string;
  workDir: string;
  tools: RenderTools;
  signal: AbortSignal;
  /** 0..1 over synthesis (first ~third) and rendering. */
  onSpeechProgress?: (fraction: number) => void;
  onRenderProgress?: (fraction: number) => void;
}

/** Synthesizes the segments and returns the timeline, the mixed WAV and the narration's caption cues. */
async function narrate(
  input: QuizRender,
): Promise<{ timeline: QuizTimeline; wavPath: string; characters: number; cues: Cue[] }> {
  const texts = quizNarration(input.spokenTitle, input.questions, input.language);
  const pieces: Pcm[] = [];
  const durations: number[] = [];
  const words: WordTiming[][] = [];
  for (const [i, text] of texts.entries()) {
    const speech = await input.synthesizer.synthesize(
      text,
      input.voice,
      input.signal,
      join(input.workDir, `quiz-${i}.wav`),
    );
    durations.push(speech.durationSec);
    words.push(speech.words);
    pieces.push(await readWav(speech.wavPath));
    input.onSpeechProgress?.((i + 1) / texts.length);
  }
  let at = (durations[0] ?? 0) + AFTER_SPEECH_SEC + 0.3;
  const introEnd = at;
  const questions = input.questions.map((_, q) => {
    const askStart = at;
    const countdownStart = askStart + (durations[1 + 2 * q] ?? 0) + AFTER_SPEECH_SEC;
    const revealStart = countdownStart + COUNTDOWN_SEC;
    const end = revealStart + (durations[2 + 2 * q] ?? 0) + AFTER_SPEECH_SEC + 0.4;
    at = end;
    return { askStart, countdownStart, revealStart, end };
  });
  const timeline: QuizTimeline = { introEnd, questions, end: at };
  const starts = [0, ...questions.flatMap((t) => [t.askStart, t.revealStart + 0.25])];
  const samples = new Int16Array(Math.ceil(timeline.end * SAMPLE_RATE));
  pieces.forEach((piece, i) => {
    const audio = resample(piece, SAMPLE_RATE).samples;
    const offset = Math.round((starts[i] ?? 0) * SAMPLE_RATE);
    samples.set(audio.subarray(0, Math.max(0, samples.length - offset)), offset);
  });
  for (const t of questions) {
    for (let n = 0; n < COUNTDOWN_SEC; n += 1) addTone(samples, t.countdownStart + n, 880, 0.08, 0.25);
    addTone(samples, t.revealStart, 1320, 0.22, 0.3);
  }
  const wavPath = join(input.workDir, "quiz.wav");
  await writeWav(wavPath, { sampleRate: SAMPLE_RATE, samples });
  const cues = words.flatMap((spoken, i) => narrationCues(spoken, starts[i] ?? 0));
  return { timeline, wavPath, characters: texts.join(" ").length, cues };
}

/**
 * Renders the quiz video (MP4, 1080x1920, H.264/AAC).
 *
 * @example
 * const media = await renderQuiz({ title, questions, language: "en", voice, synthesizer, theme, bgId: "ocean", workDir, tools, signal });
 */
export async function renderQuiz(
  input: QuizRender,
): Promise<RenderedMedia & { timeline: QuizTimeline; characters: number; cues: Cue[] }> {
  const { timeline, wavPath, characters, cues } = await narrate(input);
  input.signal.throwIfAborted();
  const assPath = join(input.workDir, "quiz.ass");
  const overlay = quizOverlay(input.title, input.questions, timeline, input.theme);
  await writeFile(assPath, overlay.ass);
  const path = join(input.workDir, "quiz.mp4");
  const duration = timeline.end;
  const background = backgroundGraph(
    input.bgId,
    { width: QUIZ_WIDTH, height: QUIZ_HEIGHT, fps: VIDEO_FPS, durationSec: duration },
    cardBoxFilters(overlay.boxes),
  );
  await runFfmpeg(
    input.tools,
    compositionArgs({ background, wavPath, assPath, durationSec: duration, padAudio: false, out: path }),
    {
      signal: input.signal,
      durationSec: duration,
      ...(input.onRenderProgress ? { onProgress: input.onRenderProgress } : {}),
    },
  );
  return { path, contentType: "video/mp4", durationSec: duration, assPath, timeline, characters, cues };
}
