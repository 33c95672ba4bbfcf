/**
 * The PCM a transcription decodes and diarizes, built from the decoded media stream. With the Silero
 * VAD, one VAD pass labels the audio for both the diarizer's speech regions and the skipping of long
 * non-speech stretches; the energy fallback is not trusted to skip (noise it calls non-speech might
 * hold quiet words), so with it every sample is decoded and the diarizer runs its own energy VAD.
 */
import { Diarizer } from "../diarize/index.ts";
import { LabelledVoicing } from "../diarize/labelled-voicing.ts";
import { skipNonSpeech, TimeMap } from "../vad/skip-non-speech.ts";
import { type LabelledChunk, labelSpeech } from "../vad/speech-labels.ts";
import type { VoiceActivity, VoiceActivityStream } from "../vad/voice-activity.ts";

export interface SpeechStreamOptions {
  vad: VoiceActivity;
  diarize: boolean;
  /** Non-speech stretches longer than this (s) are not decoded, with Silero; 0 = decode all. */
  skipNonSpeechSec: number;
}

export interface SpeechStream {
  /** What whisper decodes (skipped stretches taken out, an empty chunk where each was). */
  pcm: AsyncIterable<Float32Array>;
  /** Maps decoded times back to the input's; null when nothing is skipped. */
  timeMap: TimeMap | null;
  /** Fed every sample of the input as `pcm` is read; null without diarization. */
  diarizer: Diarizer | null;
  /** Milliseconds spent feeding the diarizer so far. */
  diarizeMs(): number;
}

/**
 * @example
 * const speech = speechStream(source.chunks, { vad, diarize: true, skipNonSpeechSec: 2 });
 * const run = await decodeStream(model, speech.pcm, { ...request, timeMap: speech.timeMap ?? undefined });
 * const turns = speech.diarizer?.finish();
 */
export function speechStream(
  chunks: AsyncIterable<Float32Array>,
  options: SpeechStreamOptions,
): SpeechStream {
  const silero = options.vad.kind === "silero";
  const skipping = silero && options.skipNonSpeechSec > 0;
  const vadStream = silero && (options.diarize || skipping) ? options.vad.stream() : null;
  const voicing = options.diarize && vadStream ? new LabelledVoicing(vadStream.frameSamples) : null;
  const diarizer = options.diarize ? new Diarizer(voicing ? { voicing } : {}) : null;
  let diarizeMs = 0;
  const diarize = (pcm: Float32Array, speech: boolean[] = []) => {
    if (!diarizer) return;
    const started = performance.now();
    voicing?.label(speech);
    diarizer.push(pcm);
    diarizeMs += performance.now() - started;
  };
  async function* tapped(): AsyncGenerator<Float32Array> {
    for await (const chunk of chunks) {
      diarize(chunk);
      yield chunk;
    }
  }
  async function* labelled(stream: VoiceActivityStream): AsyncGenerator<LabelledChunk> {
    for await (const chunk of labelSpeech(chunks, stream)) {
      diarize(chunk.pcm, chunk.speech);
      yield chunk;
    }
  }
  async function* pcmOf(labelledChunks: AsyncIterable<LabelledChunk>): AsyncGenerator<Float32Array> {
    for await (const chunk of labelledChunks) yield chunk.pcm;
  }
  const timeMap = skipping ? new TimeMap() : null;
  const pcm = !vadStream
    ? tapped()
    : timeMap
      ? skipNonSpeech(labelled(vadStream), timeMap, options.skipNonSpeechSec)
      : pcmOf(labelled(vadStream));
  return { pcm, timeMap, diarizer, diarizeMs: () => diarizeMs };
}
