/**
 * The look of a quiz video as ASS events on a 1080x1920 frame: an intro card, then per question the
 * question card with four options, a 3-2-1 countdown, and the reveal (correct option in the
 * template's colour, the rest dimmed, the explanation below). The template picks colours and layout.
 */
import { type AssEvent, type AssStyle, assDocument, assText, inlineColor } from "./ass.ts";
import type { CardBox } from "./card-boxes.ts";
import type { QuizQuestion } from "./quiz.ts";
import type { QuizTheme } from "./themes.ts";

export const QUIZ_WIDTH = 1080;
export const QUIZ_HEIGHT = 1920;
export const LETTERS = ["A", "B", "C", "D"] as const;

/** When each part of one question is on screen, in seconds from the video's start. */
export interface QuestionTimes {
  askStart: number;
  countdownStart: number;
  revealStart: number;
  end: number;
}

export interface QuizTimeline {
  introEnd: number;
  questions: QuestionTimes[];
  end: number;
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Option boxes: a stacked list, or a 2x2 grid when every option is short enough for a cell. */
function optionRects(theme: QuizTheme, options: readonly string[]): { rects: Rect[]; grid: boolean } {
  const grid = theme.layout === "grid" && options.every((o) => [...o].length <= 16);
  if (grid) {
    return {
      grid,
      rects: [0, 1, 2, 3].map((i) => ({
        x: 90 + (i % 2) * 470,
        y: 1000 + Math.floor(i / 2) * 290,
        w: 430,
        h: 260,
      })),
    };
  }
  return { grid, rects: [0, 1, 2, 3].map((i) => ({ x: 90, y: 990 + i * 175, w: 900, h: 150 })) };
}

/** A filled circle of radius r centred at (cx, cy), from four Bézier quarter arcs. */
function circle(cx: number, cy: number, r: number, fill: string): string {
  const k = Math.round(r * 0.5523);
  return `{\\an7\\pos(${cx - r},${cy - r})\\bord0\\shad0\\1c${inlineColor(fill)}\\p1}m ${r} 0 b ${r + k} 0 ${2 * r} ${r - k} ${2 * r} ${r} b ${2 * r} ${r + k} ${r + k} ${2 * r} ${r} ${2 * r} b ${r - k} ${2 * r} 0 ${r + k} 0 ${r} b 0 ${r - k} ${r - k} 0 ${r} 0{\\p0}`;
}

function styles(theme: QuizTheme): AssStyle[] {
  return [
    { name: "Box", size: 20, color: "000000", alignment: 7 },
    { name: "Header", size: 52, color: "FFFFFF", outline: 4, alignment: 8, marginV: 230, marginH: 90 },
    { name: "Question", size: 60, color: theme.cardText, alignment: 5, marginH: 130 },
    { name: "Option", size: 50, color: theme.optionText, alignment: 4, marginH: 130 },
    { name: "OptionGrid", size: 46, color: theme.optionText, alignment: 5, marginH: 60 },
    { name: "Count", size: 120, color: "FFFFFF", alignment: 5 },
    { name: "Explain", size: 44, color: "FFFFFF", outline: 4, alignment: 8, marginH: 90 },
    // the title card is opaque and its text the template's card text, one colour: WCAG AA on every
    // background (an outline around white letters on a white card was the only thing left to read)
    { name: "Title", size: 92, color: theme.cardText, alignment: 5, marginH: 110 },
  ];
}

function questionEvents(
  q: QuizQuestion,
  index: number,
  total: number,
  t: QuestionTimes,
  theme: QuizTheme,
  boxes: CardBox[],
): AssEvent[] {
  const events: AssEvent[] = [];
  const outline = theme.outline ? { outline: theme.outline } : {};
  const box = (start: number, end: number, r: Rect, fill: string, alpha = 0) =>
    boxes.push({ start, end, ...r, fill, alpha, ...outline });
  const at = (start: number, end: number, style: string, text: string, layer: number) =>
    events.push({ start, end, style, text, layer });
  at(t.askStart, t.end, "Header", `${index + 1} / ${total}`, 1);
  box(t.askStart, t.end, { x: 70, y: 380, w: 940, h: 540 }, theme.card);
  at(t.askStart, t.end, "Question", `{\\pos(540,650)}${assText(q.question)}`, 1);
  const { rects, grid } = optionRects(theme, q.options);
  q.options.forEach((option, i) => {
    const r = rects[i] as Rect;
    const label = `${LETTERS[i]}. ${assText(option)}`;
    const textPos = grid
      ? `{\\pos(${r.x + r.w / 2},${r.y + r.h / 2})}`
      : `{\\pos(${r.x + 40},${r.y + r.h / 2})}`;
    const style = grid ? "OptionGrid" : "Option";
    const correct = i === q.answer_index;
    box(t.askStart, t.revealStart, r, theme.option);
    at(t.askStart, t.revealStart, style, `${textPos}${label}`, 1);
    box(t.revealStart, t.end, r, correct ? theme.correct : theme.dimmed, correct ? 0 : 0x60);
    at(
      t.revealStart,
      t.end,
      style,
      `${textPos}{\\c${inlineColor(correct ? "FFFFFF" : theme.optionText)}}${label}`,
      1,
    );
  });
  for (let n = 0; n < 3; n += 1) {
    const start = t.countdownStart + n;
    at(start, Math.min(start + 1, t.revealStart), "Box", circle(540, 1790, 95, theme.countdown), 0);
    at(start, Math.min(start + 1, t.revealStart), "Count", `{\\pos(540,1790)\\fad(0,200)}${3 - n}`, 1);
  }
  at(t.revealStart, t.end, "Explain", `{\\pos(540,1710)\\fad(200,0)}${assText(q.explanation)}`, 1);
  return events;
}

/** A quiz video's overlay: the text and small shapes as ASS, the cards as boxes. */
export interface QuizOverlay {
  ass: string;
  boxes: CardBox[];
}

/**
 * The overlay of a whole quiz video.
 *
 * @example
 * const { ass, boxes } = quizOverlay("Rivers", questions, timeline, quizTheme("quiz-classic"));
 */
export function quizOverlay(
  title: string,
  questions: readonly QuizQuestion[],
  timeline: QuizTimeline,
  theme: QuizTheme,
): QuizOverlay {
  const boxes: CardBox[] = [
    { start: 0, end: timeline.introEnd, x: 90, y: 640, w: 900, h: 640, fill: theme.card, alpha: 0 },
  ];
  const events: AssEvent[] = [
    {
      start: 0,
      end: timeline.introEnd,
      style: "Title",
      text: `{\\pos(540,960)\\fad(150,150)}Quiz\\N${assText(title)}`,
      layer: 1,
    },
  ];
  questions.forEach((q, i) => {
    const times = timeline.questions[i];
    if (times) events.push(...questionEvents(q, i, questions.length, times, theme, boxes));
  });
  return { ass: assDocument(QUIZ_WIDTH, QUIZ_HEIGHT, styles(theme), events), boxes };
}
