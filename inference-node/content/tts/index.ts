/** Picks the narration engine from the node's environment. */
import { EspeakSynthesizer } from "./espeak.ts";
import { OpenAiSpeechSynthesizer } from "./openai-speech.ts";
import type { SpeechSynthesizer } from "./synthesizer.ts";

export { EspeakSynthesizer } from "./espeak.ts";
export { OpenAiSpeechSynthesizer } from "./openai-speech.ts";
export type { Speech, SpeechSynthesizer, WordTiming } from "./synthesizer.ts";

/**
 * VOXEDGE_TTS_URL set: the OpenAI-compatible server (VOXEDGE_TTS_API_KEY, VOXEDGE_TTS_MODEL, default
 * "tts-1"); otherwise local espeak-ng.
 *
 * @example
 * const tts = synthesizerFromEnv(process.env, "ffmpeg");
 */
export function synthesizerFromEnv(env: NodeJS.ProcessEnv, ffmpeg: string): SpeechSynthesizer {
  const url = env.VOXEDGE_TTS_URL?.trim();
  if (!url) return new EspeakSynthesizer();
  return new OpenAiSpeechSynthesizer({
    url,
    model: env.VOXEDGE_TTS_MODEL?.trim() || "tts-1",
    ffmpeg,
    ...(env.VOXEDGE_TTS_API_KEY ? { apiKey: env.VOXEDGE_TTS_API_KEY } : {}),
  });
}
