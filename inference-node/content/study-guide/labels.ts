/** The study guide's section titles in the note's language (Markdown and PDF use the same). */
import type { ContentLanguage } from "../script.ts";

export interface GuideLabels {
  summary: string;
  keyTerms: string;
  questions: string;
  timeline: string;
}

export const GUIDE_LABELS: Readonly<Record<ContentLanguage, GuideLabels>> = {
  en: {
    summary: "Summary",
    keyTerms: "Key terms",
    questions: "Questions to think about",
    timeline: "Timeline",
  },
  vi: {
    summary: "Tóm tắt",
    keyTerms: "Thuật ngữ chính",
    questions: "Câu hỏi suy ngẫm",
    timeline: "Dòng thời gian",
  },
};
