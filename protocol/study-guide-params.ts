/** POST /v2/create/study-guide, resolved: what a study-guide task carries to the node. */
import { z } from "zod";
import { ContentTaskResult, NoteSnapshot } from "./content-params.ts";

/** A study guide (Markdown and PDF). `language` null: the note's own language. */
export const StudyGuideParams = z.object({
  note: NoteSnapshot,
  language: z.enum(["en", "vi"]).nullable().default(null),
});
export type StudyGuideParams = z.infer<typeof StudyGuideParams>;

/** What a finished study guide keeps: the content result with the guide's size (the guide is in its files). */
export const StudyGuideResult = ContentTaskResult.extend({
  term_count: z.number().int().min(0),
  question_count: z.number().int().min(0),
  has_timeline: z.boolean(),
});
export type StudyGuideResult = z.infer<typeof StudyGuideResult>;
