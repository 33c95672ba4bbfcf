/** What every quiz export shares: the quiz's name and language, and how questions are named. */
import type { ContentLanguage } from "../script.ts";

export interface QuizMeta {
  /** The note's title; each question is named after it ("Rivers 1", "Rivers 2", ...). */
  title: string;
  language: ContentLanguage;
}

/** "Rivers 3" for the third question (a plain number when the note has no title). */
export const numberedTitle = (title: string, index: number) => `${singleLine(title) || "Quiz"} ${index + 1}`;

/** One line: formats that end a field at a newline get the text's line breaks as spaces. */
export const singleLine = (text: string) => text.replace(/\s+/g, " ").trim();

/** Option letters of the printed sheet and its answer key. */
export const optionLetter = (index: number) => String.fromCharCode(65 + index);
