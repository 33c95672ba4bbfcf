/**
 * Segment timestamps as the speech-to-text spec prints them (`start_fmt`, `end_fmt`).
 */

const pad = (value: number, width: number): string => String(value).padStart(width, "0");

/**
 * Formats seconds as `MM:SS.mmm`, or `HH:MM:SS.mmm` from one hour on. The value is rounded to the
 * nearest millisecond first, so a carry reaches the seconds, minutes and hours (59.9996 s → 01:00.000).
 * Negative and non-finite inputs print as zero.
 *
 * @example
 * formatTimestamp(75.5); // "01:15.500"
 * formatTimestamp(3725.0419); // "01:02:05.042"
 */
export function formatTimestamp(sec: number): string {
  const totalMs = Number.isFinite(sec) && sec > 0 ? Math.round(sec * 1000) : 0;
  const ms = totalMs % 1000;
  const totalSec = Math.floor(totalMs / 1000);
  const s = totalSec % 60;
  const m = Math.floor(totalSec / 60) % 60;
  const h = Math.floor(totalSec / 3600);
  const tail = `${pad(m, 2)}:${pad(s, 2)}.${pad(ms, 3)}`;
  return h > 0 ? `${pad(h, 2)}:${tail}` : tail;
}
