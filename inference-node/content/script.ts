/**
 * The narration of a short: the note's key sentences in their original order, sized to the clip.
 * Extractive by default (TextRank, no model); an OpenAI-compatible LLM writes it when configured.
 */
import { z } from "zod";
import type { NoteSnapshot } from "../../protocol/content.ts";
import { translationFailure } from "../translate/failure.ts";
import { ContentError } from "./errors.ts";
import { rankSentences } from "./keywords.ts";
import { chatComplete, extractJson, type LlmConfig } from "./llm.ts";
import { noteLanguage, noteSections, splitSentences, splitWords } from "./text.ts";

export type ContentLanguage = "en" | "vi";

/** Spoken words per second before anything is measured (espeak-ng at 165 wpm, pauses included). */
export const DEFAULT_WORDS_PER_SEC: Readonly<Record<ContentLanguage, number>> = { en: 2.6, vi: 3.0 };

/** Fewer words than this in the whole note: nothing worth narrating. */
export const MIN_NOTE_WORDS = 8;

export interface ScriptRequest {
  note: NoteSnapshot;
  /** The narration language (the voice's). */
  language: ContentLanguage;
  /** Upper bound on spoken words, title excluded. */
  maxWords: number;
}

export interface NarrationScript {
  /** Spoken first, over the title card. */
  title: string;
  body: string;
  source: "extractive" | "llm";
}

/**
 * Writes narration scripts.
 *
 * @example
 * const script = await writer.write({ note, language: "en", maxWords: 70 }, signal);
 */
export interface ScriptWriter {
  write(request: ScriptRequest, signal: AbortSignal): Promise<NarrationScript>;
}

/** The note's sentences in order (headings left out: they read badly aloud). */
export function noteSentences(note: NoteSnapshot): string[] {
  return noteSections(note.content, noteLanguage(note.language, note.content)).flatMap((s) => s.sentences);
}

/**
 * The highest-ranked sentences that fit `maxWords`, back in note order. When even the best sentence
 * is longer than the budget, its first `maxWords` words are used.
 *
 * @example
 * summarize(["A long intro.", "Key fact.", "Detail."], 3); // ["A long intro.", "Key fact."]-ish
 */
export function summarize(sentences: readonly string[], maxWords: number): string[] {
  const scores = rankSentences(sentences);
  const order = sentences.map((_, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
  const chosen: number[] = [];
  let words = 0;
  for (const index of order) {
    const count = splitWords(sentences[index] ?? "").length;
    if (words + count > maxWords) continue;
    chosen.push(index);
    words += count;
  }
  if (chosen.length === 0 && order.length > 0) {
    const best = splitWords(sentences[order[0] ?? 0] ?? "").slice(0, Math.max(1, maxWords));
    return [`${best.join(" ").replace(/[,;:]$/, "")}.`];
  }
  return chosen.sort((a, b) => a - b).map((i) => sentences[i] ?? "");
}

export type TranslateFn = (
  text: string,
  from: ContentLanguage,
  to: ContentLanguage,
  signal: AbortSignal,
) => Promise<string>;

/** Translates when the languages differ; fails `translation_unavailable` without a translator. */
export async function toLanguage(
  text: string,
  from: ContentLanguage,
  to: ContentLanguage,
  translate: TranslateFn | undefined,
  signal: AbortSignal,
): Promise<string> {
  if (from === to || !text.trim()) return text;
  if (!translate) {
    throw new ContentError(
      "translation_unavailable",
      `the note is in "${from}" and "${to}" was asked; no translator is configured`,
    );
  }
  try {
    return await translate(text, from, to, signal);
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof ContentError) throw error;
    const failure = translationFailure(error, from, to);
    throw new ContentError(failure.code, failure.message, { cause: error });
  }
}

/** TextRank summary of the note; translated when the voice speaks another language. */
export class ExtractiveScriptWriter implements ScriptWriter {
  constructor(private readonly translate?: TranslateFn) {}

  async write({ note, language, maxWords }: ScriptRequest, signal: AbortSignal): Promise<NarrationScript> {
    const sentences = noteSentences(note);
    if (sentences.reduce((n, s) => n + splitWords(s).length, 0) < MIN_NOTE_WORDS) {
      throw new ContentError("note_too_short", `the note has fewer than ${MIN_NOTE_WORDS} words to narrate`);
    }
    const from = noteLanguage(note.language, note.content);
    const body = summarize(sentences, maxWords).join(" ");
    const title = note.title.trim() || (sentences[0] ?? "");
    return {
      title: await toLanguage(title, from, language, this.translate, signal),
      body: await toLanguage(body, from, language, this.translate, signal),
      source: "extractive",
    };
  }
}

export const LANGUAGE_NAMES: Record<ContentLanguage, string> = { en: "English", vi: "Vietnamese" };

const LlmScript = z.object({ title: z.string(), narration: z.string().min(1) });

/** An LLM writes the narration directly in the voice's language. */
export class LlmScriptWriter implements ScriptWriter {
  constructor(private readonly config: LlmConfig) {}

  async write({ note, language, maxWords }: ScriptRequest, signal: AbortSignal): Promise<NarrationScript> {
    if (splitWords(note.content).length < MIN_NOTE_WORDS) {
      throw new ContentError("note_too_short", `the note has fewer than ${MIN_NOTE_WORDS} words to narrate`);
    }
    const answer = await chatComplete(
      this.config,
      [
        {
          role: "system",
          content:
            `You write narration for a vertical short video in ${LANGUAGE_NAMES[language]}. ` +
            `Use only facts from the note. At most ${maxWords} words, plain sentences, no headings, ` +
            'no lists, no emoji, no stage directions. Answer with JSON only: {"title": "...", "narration": "..."}, ' +
            `both in ${LANGUAGE_NAMES[language]}.`,
        },
        { role: "user", content: `Title: ${note.title}\n\n${note.content.slice(0, 24_000)}` },
      ],
      signal,
    );
    const parsed = LlmScript.safeParse(extractJson(answer));
    if (!parsed.success) throw new ContentError("llm_failed", "the LLM's answer lacks title or narration");
    // Hold the model to the budget: whole sentences while they fit.
    const body = summarizeInOrder(
      splitSentences(parsed.data.narration.replace(/\s+/g, " "), language),
      maxWords,
    );
    if (!body) throw new ContentError("llm_failed", "the LLM's narration is empty or over budget");
    return { title: parsed.data.title.trim() || note.title, body, source: "llm" };
  }
}

/** Leading sentences while they fit `maxWords`. */
function summarizeInOrder(sentences: readonly string[], maxWords: number): string {
  const kept: string[] = [];
  let words = 0;
  for (const sentence of sentences) {
    const count = splitWords(sentence).length;
    if (words + count > maxWords) break;
    kept.push(sentence);
    words += count;
  }
  return kept.join(" ");
}
