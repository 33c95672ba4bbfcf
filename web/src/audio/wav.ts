/** WAV files made in the browser: a voice clip cut from a job, or recorded from the microphone, to enrol. */
import { pcmWavHeader } from "../../../protocol/wav.ts";

/**
 * 16-bit PCM mono WAV of `pcm` at `sampleRate`, as the bytes of a .wav file.
 *
 * @example pcm16Wav(new Int16Array(16_000), 16_000).byteLength // 32 044
 */
export function pcm16Wav(pcm: Int16Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(44 + pcm.length * 2);
  bytes.set(pcmWavHeader({ channels: 1, sampleRate, bitsPerSample: 16 }, pcm.length * 2));
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < pcm.length; i++) view.setInt16(44 + i * 2, pcm[i] ?? 0, true);
  return bytes;
}

/**
 * 16-bit PCM mono WAV of `samples` (-1..1, clipped) at `sampleRate`, as the bytes of a .wav file.
 *
 * @example wavBytes(new Float32Array(16_000), 16_000).byteLength // 32 044
 */
export function wavBytes(samples: Float32Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const pcm = Int16Array.from(samples, (sample) => {
    const s = Math.max(-1, Math.min(1, sample));
    return Math.round(s < 0 ? s * 0x8000 : s * 0x7fff);
  });
  return pcm16Wav(pcm, sampleRate);
}

/** `bytes` as a `data:audio/wav;base64,…` URL. */
export function wavDataUrl(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return `data:audio/wav;base64,${btoa(binary)}`;
}
