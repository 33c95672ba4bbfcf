/**
 * A study guide from a note: summary, key terms with definitions, questions to think about, and a
 * timeline when the note has dates. Written in the note's language; the summary is extractive
 * unless a chat model is configured.
 */
import type { NoteSnapshot } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import type { LlmConfig } from "../llm.ts";
import type { ContentLanguage } from "../script.ts";
import { noteLanguage, noteSections } from "../text.ts";
import { type GuideTerm, guideTerms } from "./key-terms.ts";
import { guideQuestions } from "./questions.ts";
import { extractiveSummary, llmSummary, type SummarySource } from "./summary.ts";
import { type TimelineEntry, timeline } from "./timeline.ts";

export interface StudyGuide {
  title: string;
  language: ContentLanguage;
  summary: string[];
  summary_source: SummarySource;
  key_terms: GuideTerm[];
  questions: string[];
  /** Empty when the note mentions no date. */
  timeline: TimelineEntry[];
}

/**
 * @example
 * const guide = await buildStudyGuide(note, { llm: null }, signal);
 * guide.timeline[0]; // { date: "1939", event: "The war began in 1939.", year: 1939, month: 0, day: 0 }
 */
export async function buildStudyGuide(
  note: NoteSnapshot,
  options: { llm: LlmConfig | null },
  signal: AbortSignal,
): Promise<StudyGuide> {
  const language = noteLanguage(note.language, note.content);
  const sections = noteSections(note.content, language);
  const sentences = sections.flatMap((s) => s.sentences);
  if (sentences.length === 0) throw new ContentError("note_too_short", "the note has no sentences to study");
  const title = note.title.trim() || (sentences[0] ?? "");
  const summary = options.llm
    ? await llmSummary(options.llm, note, language, signal)
    : extractiveSummary(sentences);
  const keyTerms = guideTerms(sentences, language);
  const dated = timeline(sentences);
  const headings = sections.flatMap((s) => (s.heading && s.sentences.length > 0 ? [s.heading] : []));
  return {
    title,
    language,
    summary,
    summary_source: options.llm ? "llm" : "extractive",
    key_terms: keyTerms,
    questions: guideQuestions({ title, language, terms: keyTerms, headings, timeline: dated }),
    timeline: dated,
  };
}
