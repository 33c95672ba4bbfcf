import type { VoiceActivityStream } from "./voice-activity.ts";

/** Audio with the VAD's decision for each of its whole frames. */
export interface LabelledChunk {
  /** `speech.length` whole frames; only the stream's last chunk may add a shorter, unlabelled tail. */
  pcm: Float32Array;
  speech: boolean[];
  frameSamples: number;
}

/**
 * Runs a PCM stream through one VAD stream, regrouped on the VAD's frames (a chunk's partial last
 * frame waits for the next chunk), so everything downstream (diarizer, non-speech skipping) reads the
 * same decisions and the model runs once per frame.
 */
export async function* labelSpeech(
  pcm: AsyncIterable<Float32Array>,
  vad: VoiceActivityStream,
): AsyncGenerator<LabelledChunk> {
  const n = vad.frameSamples;
  let carry = new Float32Array(0);
  for await (const chunk of pcm) {
    const buf = new Float32Array(carry.length + chunk.length);
    buf.set(carry);
    buf.set(chunk, carry.length);
    const whole = buf.length - (buf.length % n);
    const speech: boolean[] = [];
    for (let at = 0; at < whole; at += n) speech.push(await vad.isSpeech(buf.subarray(at, at + n)));
    carry = buf.slice(whole);
    if (whole > 0) yield { pcm: buf.subarray(0, whole), speech, frameSamples: n };
  }
  if (carry.length > 0) yield { pcm: carry, speech: [], frameSamples: n };
}
