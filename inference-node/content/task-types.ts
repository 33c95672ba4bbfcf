/** The types runContentTask and its per-kind runners share. */

import type { ContentOutputRole } from "../../protocol/content.ts";
import type { RenderTools } from "./ffmpeg.ts";
import type { LlmConfig } from "./llm.ts";
import type { ContentProgress, StageSpeeds } from "./progress.ts";
import type { TranslateFn } from "./script.ts";
import type { SpeechSynthesizer } from "./tts/synthesizer.ts";

/** What a node provides to content rendering. */
export interface ContentDeps {
  synthesizer: SpeechSynthesizer;
  tools: RenderTools;
  /** An OpenAI-compatible chat model for scripts, quizzes and outlines; null: extractive. */
  llm: LlmConfig | null;
  /** Text translation (e.g. the node's Translator); absent: other-language output fails `translation_unavailable`. */
  translate?: TranslateFn;
  /** Measured stage speeds; defaults to the process-wide instance. */
  speeds?: StageSpeeds;
  /** Where task folders are made; defaults to the OS temp dir. */
  tmpRoot?: string;
}

export interface ContentTaskContext {
  signal: AbortSignal;
  report(update: ContentProgress): void;
}

export interface ContentFile {
  role: ContentOutputRole;
  path: string;
  contentType: string;
}

/** The task's result data (the Worker adds the URLs of the uploaded files). */
export interface ContentData {
  note_id: string;
  title: string;
  language: "en" | "vi";
  /** Seconds, for videos and audio. */
  duration?: number;
  slide_count?: number;
  question_count?: number;
  /** "extractive" or "llm": who wrote the text. */
  text_source?: "extractive" | "llm";
  [extra: string]: unknown;
}

export interface ContentOutput {
  data: ContentData;
  files: ContentFile[];
}
