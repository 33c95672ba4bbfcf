import { locale } from "../i18n/i18n.ts";

/**
 * Byte counts for people: 1 decimal from KB up.
 *
 * @example formatBytes(1_536_000) // "1.5 MB"
 */
export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${value.toLocaleString(locale(), { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${units[unit]}`;
}

/**
 * A media position or length as m:ss or h:mm:ss.
 *
 * @example formatClock(65.4) // "1:05"
 */
export function formatClock(totalSec: number): string {
  const sec = Math.max(0, Math.floor(totalSec));
  const h = Math.floor(sec / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = String(sec % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** A Unix-seconds time as a short local date and time. */
export function formatDateTime(unixSec: number): string {
  return new Date(unixSec * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short" });
}

/** The part of an upload's object key or a URL a person recognises: its last path segment. */
export function sourceName(source: { object_key?: string | null; file_url?: string | null } | null): string {
  const raw = source?.object_key ?? source?.file_url ?? "";
  const last = raw.split("?")[0]?.split("/").filter(Boolean).at(-1) ?? "";
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
