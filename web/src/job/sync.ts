import type { Segment } from "../api/types.ts";

/**
 * Index of the segment playing at `time` (start <= time < end), or -1 between segments. Segments are in
 * time order, so a binary search.
 *
 * @example segmentAt([{ start: 0, end: 2 }, { start: 2, end: 5 }], 3) // 1
 */
export function segmentAt(segments: readonly Pick<Segment, "start" | "end">[], time: number): number {
  let low = 0;
  let high = segments.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const segment = segments[mid];
    if (!segment) break;
    if (time < segment.start) high = mid - 1;
    else if (time >= segment.end) low = mid + 1;
    else return mid;
  }
  return -1;
}

/** One word of a segment with the time it is estimated to start. */
export interface TimedWord {
  text: string;
  start: number;
}

/**
 * A segment's words, each timed by its place in the text: results carry segment times, not word
 * times, so a word starts where its first character falls in the segment's span.
 *
 * @example wordsOf({ start: 10, end: 12, text: "ab cd" }) // [{ text: "ab", start: 10 }, { text: "cd", start: 11.2 }]
 */
export function wordsOf(segment: Pick<Segment, "start" | "end" | "text">): TimedWord[] {
  const text = segment.text.trim();
  const span = Math.max(0, segment.end - segment.start);
  const words: TimedWord[] = [];
  for (const match of text.matchAll(/\S+/g)) {
    const offset = match.index ?? 0;
    words.push({ text: match[0], start: segment.start + (text.length ? (offset / text.length) * span : 0) });
  }
  return words;
}
