/**
 * The PCM a transcription decodes and diarizes, built from the decoded media stream. With the Silero
 * VAD, one VAD pass labels the audio for both the diarizer's speech regions and the skipping of long
 * non-speech stretches; the energy fallback is not trusted to skip (noise it calls non-speech might
 * hold quiet words), so with it every sample is decoded and the diarizer runs its own energy VAD.
 */
import { Diarizer, type SpeakerTurn } from "../diarize/index.ts";
import { LabelledVoicing } from "../diarize/labelled-voicing.ts";
import type { CallProfiles } from "../diarize/voice-profile.ts";
import type { VoiceReference } from "../diarize/voice-reference.ts";
import { SAMPLE_RATE } from "../media/pcm-stream.ts";
import { type SkipOptions, skipNonSpeech, TimeMap } from "../vad/skip-non-speech.ts";
import { type LabelledChunk, labelSpeech } from "../vad/speech-labels.ts";
import type { VoiceActivity, VoiceActivityStream } from "../vad/voice-activity.ts";

/** Most samples read ahead of the diarizer: three 30 s windows (5.8 MB). */
const MAX_PENDING_SAMPLES = 3 * 30 * SAMPLE_RATE;

export interface SpeechStreamOptions {
  vad: VoiceActivity;
  diarize: boolean;
  /** The non-speech left out before decoding, with Silero (vad/chunking-plan.ts); null: decode all. */
  skip: SkipOptions | null;
  /** The Silero speech threshold (a `server_vad` request's); absent: its default. */
  speechThreshold?: number;
  /** The request's known voices, which the diarizer keeps apart from other voices (diarize/reference-anchors.ts). */
  references?: readonly VoiceReference[];
}

export interface SpeechStream {
  /** What whisper decodes (skipped stretches taken out, an empty chunk where each was). */
  pcm: AsyncIterable<Float32Array>;
  /** Maps decoded times back to the input's; null when nothing is skipped. */
  timeMap: TimeMap | null;
  /** Whether the input is diarized. */
  diarizing: boolean;
  /**
   * Runs the diarizer on what `pcm` has read so far, and clusters once the input has ended. Called
   * while whisper decodes a window on its own thread, so diarization really runs beside recognition.
   */
  diarizeAlongside(): void;
  /** The speaker turns, after any diarization not yet run; null without diarization. */
  finishDiarization(): SpeakerTurn[] | null;
  /** The diarizer's own wall time so far (feeding and clustering), in milliseconds. */
  diarizeMs(): number;
  /** Voice profiles of the speakers of `finishDiarization()`'s turns and the noise (none without diarization). */
  speakerProfiles(): CallProfiles;
}

/**
 * @example
 * const speech = speechStream(source.chunks, { vad, diarize: true, skip: { minGapSec: 2 } });
 * const run = await decodeStream(model, speech.pcm, { ...request, alongside: speech.diarizeAlongside });
 * const turns = speech.finishDiarization();
 */
export function speechStream(
  chunks: AsyncIterable<Float32Array>,
  options: SpeechStreamOptions,
): SpeechStream {
  const silero = options.vad.kind === "silero";
  const skip = silero ? options.skip : null;
  const vadStream =
    silero && (options.diarize || skip)
      ? options.vad.stream({
          ...(options.speechThreshold !== undefined && { speechThreshold: options.speechThreshold }),
        })
      : null;
  const voicing = options.diarize && vadStream ? new LabelledVoicing(vadStream.frameSamples) : null;
  const references = options.references ?? [];
  const diarizer = options.diarize ? new Diarizer({ ...(voicing && { voicing }), references }) : null;
  // Chunks read but not yet diarized: what is read while one window decodes, about one window; a
  // reader that never calls diarizeAlongside has them diarized as they come past the bound.
  const pending: { pcm: Float32Array; speech: boolean[] }[] = [];
  let pendingSamples = 0;
  let inputEnded = false;
  let turns: SpeakerTurn[] | null = null;
  let diarizeMs = 0;
  const queue = (pcm: Float32Array, speech: boolean[] = []) => {
    if (!diarizer) return;
    pending.push({ pcm, speech });
    pendingSamples += pcm.length;
    if (pendingSamples > MAX_PENDING_SAMPLES) runDiarizer(false);
  };
  const runDiarizer = (cluster: boolean) => {
    if (!diarizer || turns) return;
    const started = performance.now();
    for (const chunk of pending.splice(0)) {
      voicing?.label(chunk.speech);
      diarizer.push(chunk.pcm);
    }
    pendingSamples = 0;
    if (cluster) turns = diarizer.finish();
    diarizeMs += performance.now() - started;
  };
  async function* tapped(): AsyncGenerator<Float32Array> {
    for await (const chunk of chunks) {
      queue(chunk);
      yield chunk;
    }
    inputEnded = true;
  }
  async function* labelled(stream: VoiceActivityStream): AsyncGenerator<LabelledChunk> {
    for await (const chunk of labelSpeech(chunks, stream)) {
      queue(chunk.pcm, chunk.speech);
      yield chunk;
    }
    inputEnded = true;
  }
  async function* pcmOf(labelledChunks: AsyncIterable<LabelledChunk>): AsyncGenerator<Float32Array> {
    for await (const chunk of labelledChunks) yield chunk.pcm;
  }
  const timeMap = skip ? new TimeMap() : null;
  const pcm = !vadStream
    ? tapped()
    : timeMap && skip
      ? skipNonSpeech(labelled(vadStream), timeMap, skip)
      : pcmOf(labelled(vadStream));
  return {
    pcm,
    timeMap,
    diarizing: diarizer !== null,
    diarizeAlongside: () => runDiarizer(inputEnded),
    finishDiarization: () => {
      runDiarizer(true);
      return turns;
    },
    diarizeMs: () => diarizeMs,
    speakerProfiles: () => {
      runDiarizer(true);
      return diarizer?.speakerProfiles() ?? { speakers: new Map(), noise: null };
    },
  };
}
