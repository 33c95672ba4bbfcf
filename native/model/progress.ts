/**
 * Download progress for people: on a terminal one line redrawn in place (bar, bytes, speed, ETA), in
 * logs and pipes a plain line every 10 %. `renderProgress` is the pure formatting; `progressReporter`
 * decides when to write.
 */
import type { DownloadProgress } from "./download.ts";

export interface ProgressSample extends DownloadProgress {
  /** Bytes per second over this run's transfer, or null before it can be measured. */
  bytesPerSecond: number | null;
}

const BAR_WIDTH = 25;

const megabytes = (bytes: number): string => (bytes / 1e6).toFixed(1);

/** m:ss, or h:mm:ss past an hour. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(r).padStart(2, "0")}`;
}

/**
 * One progress line.
 *
 * @example
 * renderProgress("ggml-base.bin", { received: 71e6, total: 142e6, bytesPerSecond: 10e6 })
 * // "ggml-base.bin [############.............]  50.0% 71.0/142.0 MB 10.0 MB/s ETA 0:07"
 */
export function renderProgress(label: string, { received, total, bytesPerSecond }: ProgressSample): string {
  const speed = bytesPerSecond === null ? "-- MB/s" : `${megabytes(bytesPerSecond)} MB/s`;
  if (!total) return `${label} ${megabytes(received)} MB ${speed}`;
  const fraction = Math.min(1, received / total);
  const bar = "#".repeat(Math.floor(fraction * BAR_WIDTH)).padEnd(BAR_WIDTH, ".");
  const percent = `${(fraction * 100).toFixed(1)}%`.padStart(6);
  const eta =
    bytesPerSecond && bytesPerSecond > 0 ? formatDuration((total - received) / bytesPerSecond) : "--:--";
  return `${label} [${bar}] ${percent} ${megabytes(received)}/${megabytes(total)} MB ${speed} ETA ${eta}`;
}

export interface ReporterOptions {
  label: string;
  /** A terminal: redraw one line. Otherwise plain lines every 10 %. */
  tty: boolean;
  write: (text: string) => void;
  now?: () => number;
}

/** Redraws at most this often on a terminal (a chunk arrives every few KB). */
const REDRAW_MS = 100;

/**
 * An `onProgress` callback that writes progress; `finish()` ends a redrawn line. Speed counts only
 * this run's bytes (a resumed download starts from its earlier part, which took no time now).
 */
export function progressReporter(options: ReporterOptions): {
  onProgress: (p: DownloadProgress) => void;
  finish: () => void;
} {
  const now = options.now ?? Date.now;
  let first: { at: number; received: number } | null = null;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastDecile = -1;
  let drawn = false;
  const sample = (p: DownloadProgress): ProgressSample => {
    first ??= { at: now(), received: p.received };
    const seconds = (now() - first.at) / 1000;
    return { ...p, bytesPerSecond: seconds > 0 ? (p.received - first.received) / seconds : null };
  };
  return {
    onProgress(p) {
      const current = sample(p);
      const done = p.total !== null && p.received >= p.total;
      if (options.tty) {
        if (now() - lastDraw < REDRAW_MS && !done) return;
        lastDraw = now();
        drawn = true;
        options.write(`\r${renderProgress(options.label, current)}\x1b[K`);
        return;
      }
      if (p.total === null) return;
      const decile = Math.floor((10 * p.received) / p.total);
      if (decile <= lastDecile) return;
      lastDecile = decile;
      options.write(`${renderProgress(options.label, current)}\n`);
    },
    finish() {
      if (drawn) options.write("\n");
      drawn = false;
    },
  };
}
