import { availableParallelism } from "node:os";
import { z } from "zod";
import { defaultThreads } from "../../native/index.ts";
import { DEFAULT_LIVE_CAPACITY } from "../../protocol/live.ts";

/**
 * Tuning of the streaming engine, from the environment:
 *
 *   VOXEDGE_LIVE_CAPACITY         live streams this node takes at once (default 4, sized from the rooms
 *                                 bench on two cores; each holds two whisper states; 0 = no live engine)
 *   VOXEDGE_LIVE_VAD_SILENCE_MS   Silero VAD silence that ends an utterance (default 500)
 *   VOXEDGE_LIVE_SILENCE_MS       pause that ends an utterance with the energy VAD (default 600)
 *   VOXEDGE_LIVE_INTERIM_MS       audio between interim re-decodes (default 500)
 *   VOXEDGE_LIVE_MAX_UTTERANCE_MS an utterance is cut at this length (default 15000)
 *   VOXEDGE_LIVE_CORES            CPU threads every live decode of the node shares (default: the cores;
 *                                 a decode alone gets the node's --threads, several split them, finals
 *                                 first: decode-gate.ts)
 *   VOXEDGE_LIVE_AUDIO_CTX        `auto` (whisper's encoder context sized to the audio heard, with a
 *                                 floor: interims and finals cost a fraction of a 30 s window) or `off`
 *                                 (the full 30 s context for every decode, as file jobs use: slower,
 *                                 the accuracy of whisper's training set-up)
 */
export const LiveOptions = z.object({
  capacity: z.coerce.number().int().min(0).max(64),
  cores: z.coerce.number().int().min(1).max(1024),
  /** The node's threads per decode (`--threads`): what a live decode gets when it runs alone. */
  threadsPerDecode: z.number().int().min(1).max(64),
  vadSilenceMs: z.coerce.number().int().min(100).max(5_000),
  silenceMs: z.coerce.number().int().min(100).max(5_000),
  interimMs: z.coerce.number().int().min(100).max(10_000),
  maxUtteranceMs: z.coerce.number().int().min(1_000).max(28_000),
  audioCtx: z.enum(["auto", "off"]),
  /** Finals waiting for the decoder; past this the oldest is dropped (with an error message). */
  maxPendingFinals: z.number().int().min(1),
  /** Token cap per decode (0 = whisper's own), the node's VOXEDGE_MAX_TOKENS. */
  maxTokens: z.number().int().min(0),
});
export type LiveOptions = z.infer<typeof LiveOptions>;

/** Defaults: 500 ms VAD endpointing (600 ms with the energy fallback) and two interim decodes a second. */
export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  // Measured (npm run bench -- rooms, 2 cores): four rooms whose speakers all finish a phrase at the
  // same moment get their partners' finals at p50 ~1.3-1.6 s through the decode gate, every one
  // within 5 s; a fifth speaker gets `no_engine` at once. docs/native.md "Capacity".
  capacity: DEFAULT_LIVE_CAPACITY,
  cores: availableParallelism(),
  threadsPerDecode: defaultThreads(),
  vadSilenceMs: 500,
  silenceMs: 600,
  interimMs: 500,
  maxUtteranceMs: 15_000,
  audioCtx: "auto",
  maxPendingFinals: 3,
  maxTokens: 0,
};

/** Reads the live options (`threads`: the node's threads per decode); throws a readable message on a bad value. */
export function liveOptionsFromEnv(env: NodeJS.ProcessEnv, maxTokens: number, threads: number): LiveOptions {
  const d = DEFAULT_LIVE_OPTIONS;
  const parsed = LiveOptions.safeParse({
    capacity: env.VOXEDGE_LIVE_CAPACITY ?? d.capacity,
    cores: env.VOXEDGE_LIVE_CORES ?? d.cores,
    threadsPerDecode: threads,
    vadSilenceMs: env.VOXEDGE_LIVE_VAD_SILENCE_MS ?? d.vadSilenceMs,
    silenceMs: env.VOXEDGE_LIVE_SILENCE_MS ?? d.silenceMs,
    interimMs: env.VOXEDGE_LIVE_INTERIM_MS ?? d.interimMs,
    maxUtteranceMs: env.VOXEDGE_LIVE_MAX_UTTERANCE_MS ?? d.maxUtteranceMs,
    audioCtx: env.VOXEDGE_LIVE_AUDIO_CTX ?? d.audioCtx,
    maxPendingFinals: d.maxPendingFinals,
    maxTokens,
  });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`live engine configuration: ${issues}`);
  }
  return parsed.data;
}
