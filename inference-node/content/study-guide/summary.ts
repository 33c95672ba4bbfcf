/**
 * The study guide's summary: the note's most central sentences in note order (TextRank, no model),
 * or a summary the configured chat model writes from the note alone.
 */
import { z } from "zod";
import type { NoteSnapshot } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { chatComplete, extractJson, type LlmConfig } from "../llm.ts";
import { type ContentLanguage, LANGUAGE_NAMES, summarize } from "../script.ts";
import { splitSentences } from "../text.ts";

/** About a paragraph: enough for the gist, short enough to reread before the quiz. */
export const SUMMARY_WORDS = 90;

export type SummarySource = "extractive" | "llm";

/** The highest-ranked sentences within SUMMARY_WORDS, back in note order. */
export const extractiveSummary = (sentences: readonly string[]) => summarize(sentences, SUMMARY_WORDS);

const LlmSummary = z.object({ summary: z.string().min(1) });

/**
 * @example
 * await llmSummary(config, note, "vi", signal); // ["Sông Mê Kông ...", "..."]
 */
export async function llmSummary(
  config: LlmConfig,
  note: NoteSnapshot,
  language: ContentLanguage,
  signal: AbortSignal,
): Promise<string[]> {
  const answer = await chatComplete(
    config,
    [
      {
        role: "system",
        content:
          `Summarise the note for a student in ${LANGUAGE_NAMES[language]}: 3 to 5 plain sentences, ` +
          `at most ${SUMMARY_WORDS} words, only facts from the note, no lists or headings. ` +
          'Answer with JSON only: {"summary": "..."}',
      },
      { role: "user", content: `Title: ${note.title}\n\n${note.content.slice(0, 24_000)}` },
    ],
    signal,
  );
  const parsed = LlmSummary.safeParse(extractJson(answer));
  if (!parsed.success)
    throw new ContentError("llm_failed", "the LLM's summary does not match the expected shape");
  const sentences = splitSentences(parsed.data.summary, language);
  if (sentences.length === 0) throw new ContentError("llm_failed", "the LLM's summary has no sentence");
  return sentences;
}
