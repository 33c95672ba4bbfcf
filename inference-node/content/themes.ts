/**
 * What each catalog template looks like: colours and layout for slide decks and quiz videos.
 * Colours are RRGGBB hex (pptxgenjs and pdfkit take them as they are; ASS gets them converted).
 */
import { TEMPLATES } from "../../protocol/content.ts";
import { ContentError } from "./errors.ts";

export interface SlideTheme {
  background: string;
  /** Title-slide background and the accent bar. */
  accent: string;
  heading: string;
  body: string;
  /** Text on the accent colour. */
  onAccent: string;
  /** Typeface named in the PPTX (the viewer's copy is used; every one listed covers Vietnamese). */
  pptxFont: string;
}

export interface QuizTheme {
  card: string;
  cardText: string;
  option: string;
  optionText: string;
  /** Outline around cards and options ("" for none). */
  outline: string;
  correct: string;
  dimmed: string;
  countdown: string;
  /** "list": four options stacked; "grid": two by two. */
  layout: "list" | "grid";
}

const SLIDE_THEMES: Readonly<Record<string, SlideTheme>> = {
  "slide-clean": {
    background: "FFFFFF",
    accent: "2563EB",
    heading: "0F172A",
    body: "334155",
    onAccent: "FFFFFF",
    pptxFont: "Arial",
  },
  "slide-midnight": {
    background: "0F172A",
    accent: "F59E0B",
    heading: "F8FAFC",
    body: "CBD5E1",
    onAccent: "0F172A",
    pptxFont: "Calibri",
  },
  "slide-forest": {
    background: "FBF7EF",
    accent: "2F855A",
    heading: "1C3D2E",
    body: "3F4F44",
    onAccent: "FFFFFF",
    pptxFont: "Georgia",
  },
};

const QUIZ_THEMES: Readonly<Record<string, QuizTheme>> = {
  "quiz-classic": {
    card: "FFFFFF",
    cardText: "111827",
    option: "F3F4F6",
    optionText: "111827",
    outline: "",
    correct: "16A34A",
    dimmed: "9CA3AF",
    countdown: "F59E0B",
    layout: "list",
  },
  "quiz-neon": {
    card: "111827",
    cardText: "F9FAFB",
    option: "1F2937",
    optionText: "E5E7EB",
    outline: "22D3EE",
    correct: "A3E635",
    dimmed: "4B5563",
    countdown: "F472B6",
    layout: "grid",
  },
};

function known(templateId: string, kind: "slide" | "quiz_video"): void {
  if (!TEMPLATES.some((t) => t.template_id === templateId && t.kind === kind)) {
    throw new ContentError("invalid_params", `unknown ${kind} template_id "${templateId}"`);
  }
}

/** The look of a slide template; ContentError `invalid_params` for an unknown id. */
export function slideTheme(templateId: string): SlideTheme {
  known(templateId, "slide");
  const theme = SLIDE_THEMES[templateId];
  if (!theme) throw new ContentError("invalid_params", `template "${templateId}" has no slide theme`);
  return theme;
}

/** The look of a quiz-video template; ContentError `invalid_params` for an unknown id. */
export function quizTheme(templateId: string): QuizTheme {
  known(templateId, "quiz_video");
  const theme = QUIZ_THEMES[templateId];
  if (!theme) throw new ContentError("invalid_params", `template "${templateId}" has no quiz theme`);
  return theme;
}
