/**
 * Speaker diarization for the inference node: a streaming {@link Diarizer} that runs beside
 * recognition, {@link assignSpeakers} to label transcript segments with its turns, and
 * {@link diarizationErrorRate} to score turns against a reference.
 *
 * @example
 * import { Diarizer, assignSpeakers } from "./diarize/index.ts";
 * const diarizer = new Diarizer();
 * for (const chunk of pcmChunks) diarizer.push(chunk); // 16 kHz mono Float32
 * const segments = assignSpeakers(asrSegments, diarizer.finish());
 */
export type { SpeakerTurn } from "../../protocol/transcription.ts";
export { assignSpeakers } from "./assign.ts";
export { type DerBreakdown, diarizationErrorRate } from "./der.ts";
export { BYTES_PER_AUDIO_MINUTE, Diarizer, type DiarizerOptions } from "./diarizer.ts";
export type { VadOptions } from "./vad.ts";
