/**
 * Open questions to think about after reading: why the key terms matter, how two of them relate,
 * each section's point in the reader's own words, and what surrounds the timeline's first event.
 * They ask for reasoning, not recall (recall is what the quiz is for).
 */
import type { ContentLanguage } from "../script.ts";
import { foldForCompare } from "../text.ts";
import type { GuideTerm } from "./key-terms.ts";
import type { TimelineEntry } from "./timeline.ts";

export const MAX_GUIDE_QUESTIONS = 5;

const TEMPLATES: Readonly<
  Record<
    ContentLanguage,
    {
      matters: (term: string, title: string) => string;
      relates: (a: string, b: string) => string;
      section: (heading: string) => string;
      event: (date: string) => string;
    }
  >
> = {
  en: {
    matters: (term, title) => `Why does ${term} matter to “${title}”?`,
    relates: (a, b) => `How are ${a} and ${b} connected?`,
    section: (heading) => `What is the main point of “${heading}”, in your own words?`,
    event: (date) => `What led to the events of ${date}, and what followed from them?`,
  },
  vi: {
    matters: (term, title) => `Vì sao ${term} quan trọng đối với chủ đề “${title}”?`,
    relates: (a, b) => `${a} và ${b} liên quan với nhau như thế nào?`,
    section: (heading) => `Ý chính của phần “${heading}” là gì, theo cách diễn đạt của bạn?`,
    event: (date) => `Điều gì dẫn đến sự kiện ${date}, và sau đó là gì?`,
  },
};

/**
 * @example
 * guideQuestions({ title: "Rivers", language: "en", terms, headings: ["Ecology"], timeline: [] });
 * // ["Why does Mekong matter to “Rivers”?", "How are Mekong and Laos connected?", ...]
 */
export function guideQuestions(input: {
  title: string;
  language: ContentLanguage;
  terms: readonly GuideTerm[];
  headings: readonly string[];
  timeline: readonly TimelineEntry[];
}): string[] {
  const t = TEMPLATES[input.language];
  // "Why does Photosynthesis matter to “Photosynthesis”?" asks nothing: the title's own term is left out.
  const [first, second] = input.terms.filter(
    (term) => foldForCompare(term.term) !== foldForCompare(input.title),
  );
  const questions = [
    ...(first ? [t.matters(first.term, input.title)] : []),
    ...(first && second ? [t.relates(first.term, second.term)] : []),
    ...(input.timeline[0] ? [t.event(input.timeline[0].date)] : []),
    ...input.headings.map(t.section),
  ];
  return questions.slice(0, MAX_GUIDE_QUESTIONS);
}
