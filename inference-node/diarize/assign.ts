/**
 * Labels transcript segments with speakers: each segment takes the speaker whose turns overlap it
 * the longest. Turns are sorted once and indexed by a running maximum of their ends, so each segment
 * only visits the turns that can overlap it (O((S + T) log T) for typical, non-nested turns).
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";

/**
 * Copies `segments` in their order, adding `speaker`: the speaker with the largest total overlap, or
 * null when no turn overlaps the segment (touching ends do not count). An exact tie goes to the
 * speaker whose label sorts first, which with `SPEAKER_nn` labels is the one that spoke first.
 *
 * @example
 * assignSpeakers(
 *   [{ start: 0, end: 2, text: "hi" }, { start: 5, end: 6, text: "bye" }],
 *   [{ start: 0, end: 1.5, speaker: "SPEAKER_00" }, { start: 1.5, end: 4, speaker: "SPEAKER_01" }],
 * ); // [{ ..., speaker: "SPEAKER_00" }, { ..., speaker: null }]
 */
export function assignSpeakers<T extends { start: number; end: number }>(
  segments: T[],
  turns: SpeakerTurn[],
): (T & { speaker: string | null })[] {
  const sorted = [...turns].sort((a, b) => a.start - b.start);
  // reach[i]: the latest end among sorted[0..i]; turns up to i all end before a start >= reach[i].
  const reach: number[] = [];
  for (const [i, turn] of sorted.entries()) reach.push(Math.max(turn.end, reach[i - 1] ?? turn.end));
  return segments.map((segment) => {
    // First turn starting at or after the segment end: it and everything after cannot overlap.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid]?.start ?? segment.end) < segment.end) lo = mid + 1;
      else hi = mid;
    }
    const overlap = new Map<string, number>();
    for (let i = lo - 1; i >= 0 && (reach[i] ?? 0) > segment.start; i--) {
      const turn = sorted[i];
      if (!turn) break;
      const shared = Math.min(turn.end, segment.end) - Math.max(turn.start, segment.start);
      if (shared > 0) overlap.set(turn.speaker, (overlap.get(turn.speaker) ?? 0) + shared);
    }
    let speaker: string | null = null;
    let best = 0;
    for (const [candidate, total] of overlap) {
      if (total > best || (total === best && speaker !== null && candidate < speaker)) {
        [speaker, best] = [candidate, total];
      }
    }
    return { ...segment, speaker };
  });
}
