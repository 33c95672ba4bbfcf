/**
 * Dated events of a note: every year or date a sentence mentions, in English ("1945", "September
 * 1945", "2 September 1945", "September 2, 1945") or Vietnamese ("năm 1945", "tháng 9 năm 1945",
 * "ngày 2 tháng 9 năm 1945") form, sorted by date (undated parts first within a year: a year
 * reads as "during it"), note order breaking ties.
 */

import { isStopword } from "../keywords.ts";
import { termOf } from "../text.ts";

export interface TimelineEntry {
  /** The date as the note writes it. */
  date: string;
  /** The sentence that mentions it. */
  event: string;
  year: number;
  /** 0 when the note gives only the year. */
  month: number;
  /** 0 when the note gives no day. */
  day: number;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const MONTH = `(${MONTHS.join("|")})`;
/** A year a note means as a date: 1000 to 2199, not part of a longer number or word ("4,350", "1990s"). */
const YEAR = String.raw`(?<![\p{L}\p{N},.])(1\d{3}|2[01]\d{2})(?![\p{L}\p{N}]|[,.]\p{N})`;

interface DatePattern {
  regex: RegExp;
  /** A year alone: read as a date only when no counted noun follows ("2000 kilometres" is a distance). */
  bareYear?: true;
  parts: (m: RegExpExecArray) => [year: number, month: number, day: number];
}

const monthOf = (name: string | undefined) => MONTHS.indexOf((name ?? "").toLowerCase()) + 1;
const num = (text: string | undefined) => Number(text ?? 0);

/** Most specific first: a span taken by a longer date is not read again as a bare year. */
const PATTERNS: DatePattern[] = [
  {
    regex: new RegExp(String.raw`ngày\s+(\d{1,2})\s+tháng\s+(\d{1,2})\s*,?\s+năm\s+${YEAR}`, "giu"),
    parts: (m) => [num(m[3]), num(m[2]), num(m[1])],
  },
  {
    regex: new RegExp(String.raw`tháng\s+(\d{1,2})\s*,?\s+năm\s+${YEAR}`, "giu"),
    parts: (m) => [num(m[2]), num(m[1]), 0],
  },
  {
    regex: new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?${MONTH},?\s+${YEAR}`, "giu"),
    parts: (m) => [num(m[3]), monthOf(m[2]), num(m[1])],
  },
  {
    regex: new RegExp(String.raw`\b${MONTH}\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+${YEAR}`, "giu"),
    parts: (m) => [num(m[3]), monthOf(m[1]), num(m[2])],
  },
  {
    regex: new RegExp(String.raw`\b${MONTH},?\s+${YEAR}`, "giu"),
    parts: (m) => [num(m[2]), monthOf(m[1]), 0],
  },
  { regex: new RegExp(String.raw`năm\s+${YEAR}`, "giu"), parts: (m) => [num(m[1]), 0, 0] },
  { regex: new RegExp(YEAR, "gu"), parts: (m) => [num(m[1]), 0, 0], bareYear: true },
];

/** True when the text after a number opens with a lower-case content word (a unit or a counted noun). */
function countsSomething(after: string): boolean {
  const next = /^\s+(\p{Ll}\p{L}*)/u.exec(after)?.[1];
  return next !== undefined && !isStopword(termOf(next));
}

/** The dates one sentence mentions, in the order they appear. */
export function datesIn(sentence: string): Omit<TimelineEntry, "event">[] {
  const found: (Omit<TimelineEntry, "event"> & { start: number; end: number })[] = [];
  for (const { regex, parts, bareYear } of PATTERNS) {
    for (const m of sentence.matchAll(regex)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (found.some((f) => start < f.end && f.start < end)) continue;
      if (bareYear && countsSomething(sentence.slice(end))) continue;
      const [year, month, day] = parts(m as RegExpExecArray);
      if (month > 12 || day > 31) continue;
      found.push({ date: m[0], year, month, day, start, end });
    }
  }
  return found
    .sort((a, b) => a.start - b.start)
    .map(({ date, year, month, day }) => ({ date, year, month, day }));
}

/**
 * The note's timeline; empty when it mentions no date.
 *
 * @example
 * timeline(["Japan surrendered in August 1945.", "The war began in 1939."]);
 * // [{ date: "1939", year: 1939, ... }, { date: "August 1945", year: 1945, month: 8, ... }]
 */
export function timeline(sentences: readonly string[]): TimelineEntry[] {
  const entries = sentences.flatMap((event) => datesIn(event).map((d) => ({ ...d, event })));
  // Array.prototype.sort is stable: equal dates keep note order.
  return entries.sort((a, b) => a.year - b.year || a.month - b.month || a.day - b.day);
}
