import type { TaskStatusResponse } from "../api/types.ts";

/**
 * Progress and time left for a job. While it runs, the node's own progress (the poll's `progress`)
 * is shown, with the time left from the pace so far. Before the node has said anything (queued, or
 * no report yet) it is estimated: the time a job of this length took lately (seconds of processing per
 * second of audio, from this key's finished jobs) against the time it has been processing. Null where
 * nothing sound can be said (no audio length, no finished job yet).
 */
export interface JobEstimate {
  /** 0..1 while processing (capped below 1 until the job says done); null when unknown. */
  progress: number | null;
  /** Seconds until done; null when unknown. */
  etaSec: number | null;
}

export interface EstimateInput {
  status: TaskStatusResponse;
  /** Audio length in seconds, when known. */
  durationSec: number | null;
  /** Seconds of processing per second of audio, from recent jobs; null when none finished yet. */
  processingRatio: number | null;
  /** How long it has been seen processing, in seconds (0 while queued). */
  processingForSec: number;
}

/**
 * @example estimateJob({ status, durationSec: 60, processingRatio: 0.5, processingForSec: 10 })
 * // { progress: 0.33, etaSec: 20 } while processing
 */
export function estimateJob(input: EstimateInput): JobEstimate {
  const { status, durationSec, processingRatio, processingForSec } = input;
  if (status.status === "done") return { progress: 1, etaSec: 0 };
  if (status.status === "failed") return { progress: null, etaSec: null };
  const reported = (status.progress ?? 0) / 100;
  if (status.status === "processing" && reported > 0 && processingForSec > 0) {
    const progress = Math.min(0.99, reported);
    return { progress, etaSec: (processingForSec * (1 - progress)) / progress };
  }
  if (durationSec === null || processingRatio === null || durationSec <= 0) {
    return { progress: null, etaSec: null };
  }
  const ownSec = durationSec * processingRatio;
  if (status.status === "processing") {
    const left = Math.max(0, ownSec - processingForSec);
    return { progress: Math.min(0.95, processingForSec / Math.max(ownSec, 0.001)), etaSec: left };
  }
  // Queued: the jobs ahead run `concurrency` at a time, each assumed to take about as long as this one.
  const queue = status.queue;
  const ahead = Math.max(0, (queue?.position ?? 1) - 1) + (queue?.processing ?? 0);
  const lanes = Math.max(1, queue?.concurrency ?? 1);
  const waitSec = Math.floor(ahead / lanes) * ownSec;
  return { progress: 0, etaSec: waitSec + ownSec };
}

/**
 * The median processing ratio of finished results (total or recognition time over audio length).
 *
 * @example processingRatioOf([{ duration_sec: 10, total_ms: 5000, asr_ms: 4000 }]) // 0.5
 */
export function processingRatioOf(
  results: readonly { duration_sec: number; total_ms?: number; asr_ms: number }[],
): number | null {
  const ratios = results
    .filter((r) => r.duration_sec > 0)
    .map((r) => (r.total_ms && r.total_ms > 0 ? r.total_ms : r.asr_ms) / 1000 / r.duration_sec)
    .filter((ratio) => Number.isFinite(ratio) && ratio > 0)
    .sort((a, b) => a - b);
  if (ratios.length === 0) return null;
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 ? (ratios[mid] ?? null) : ((ratios[mid - 1] ?? 0) + (ratios[mid] ?? 0)) / 2;
}
