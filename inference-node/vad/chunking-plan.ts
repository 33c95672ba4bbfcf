/**
 * A task's `chunking` (protocol/transcribe-params.ts) turned into what the speech stream does: which
 * non-speech the Silero VAD leaves out, and the probability it opens speech at.
 */
import type { Chunking } from "../../protocol/transcribe-params.ts";
import type { SkipOptions } from "./skip-non-speech.ts";

/**
 * A left-out run of at least this many seconds ends whisper's window; shorter ones (a `server_vad`
 * request's short `silence_duration_ms`) are joined up like pauses, so they do not multiply the
 * windows, each of which costs a whole 30 s encoder pass.
 */
const WINDOW_BREAK_SEC = 2;

export interface ChunkingPlan {
  /** What is left out before decoding; null: every sample is decoded. */
  skip: SkipOptions | null;
  /** The Silero speech threshold; absent: the detector's default. */
  speechThreshold?: number;
}

/**
 * @param nodeSkipSec the node's own gap (`VOXEDGE_VAD_SKIP_SEC`) for `auto` and for tasks without
 *   `chunking`; 0 turns `auto` off, not a request's explicit `server_vad`.
 * @example chunkingPlan("none", 2) // { skip: null }
 * @example chunkingPlan(undefined, 2) // { skip: { minGapSec: 2 } }
 * @example chunkingPlan({ type: "server_vad", threshold: 0.6, prefix_padding_ms: 300, silence_duration_ms: 500 }, 2)
 *   // { skip: { minGapSec: 0.5, padSec: 0.3, breakSec: 2 }, speechThreshold: 0.6 }
 */
export function chunkingPlan(chunking: Chunking | undefined, nodeSkipSec: number): ChunkingPlan {
  if (chunking === "none") return { skip: null };
  if (chunking === undefined || chunking === "auto") {
    return { skip: nodeSkipSec > 0 ? { minGapSec: nodeSkipSec } : null };
  }
  const minGapSec = chunking.silence_duration_ms / 1000;
  return {
    skip: {
      minGapSec,
      padSec: chunking.prefix_padding_ms / 1000,
      breakSec: Math.max(minGapSec, WINDOW_BREAK_SEC),
    },
    speechThreshold: chunking.threshold,
  };
}
