/**
 * 24 kHz → 16 kHz PCM16 for realtime clients (OpenAI's `pcm16` is 24 kHz; the live engine takes
 * 16 kHz). A windowed-sinc low-pass at 7.2 kHz (under the new Nyquist, so nothing folds back into
 * speech) evaluated at every 1.5th input sample; streaming: chunks of any size, the filter's tail
 * carried between them, so cutting a stream into appends changes no output sample.
 */

const RATIO = 1.5;
/** Input samples each side of an output sample (25 taps: -60 dB sidelobes with a Blackman window). */
const HALF = 12;
/** Cutoff as a fraction of the input rate: 7.2 kHz / 24 kHz. */
const CUTOFF = 0.3;

/** The two filter phases: output samples fall on whole input samples (even j) or halfway (odd j). */
const PHASES = [0, 0.5].map((fraction) => {
  const taps: number[] = [];
  for (let k = -HALF + 1; k <= HALF; k++) {
    const x = fraction - k;
    const sinc = x === 0 ? 1 : Math.sin(2 * Math.PI * CUTOFF * x) / (2 * Math.PI * CUTOFF * x);
    const w = 0.42 + 0.5 * Math.cos((Math.PI * x) / HALF) + 0.08 * Math.cos((2 * Math.PI * x) / HALF);
    taps.push(2 * CUTOFF * sinc * w);
  }
  const sum = taps.reduce((a, b) => a + b, 0);
  return taps.map((tap) => tap / sum);
});

export class Resampler24kTo16k {
  /** Input samples still needed by the filter, starting at absolute index `#base`. */
  #held = new Int16Array(0);
  #base = 0;
  /** Next output sample's index. */
  #next = 0;

  /** Resamples one chunk; returns the output samples it completes (PCM16 little-endian). */
  push(chunk: Int16Array): Int16Array {
    const held = new Int16Array(this.#held.length + chunk.length);
    held.set(this.#held);
    held.set(chunk, this.#held.length);
    const end = this.#base + held.length; // one past the last input sample
    const out: number[] = [];
    for (;;) {
      const position = this.#next * RATIO;
      const whole = Math.floor(position);
      if (whole + HALF >= end) break;
      const taps = PHASES[this.#next % 2] ?? [];
      let acc = 0;
      for (let i = 0; i < taps.length; i++) {
        const index = whole - HALF + 1 + i - this.#base;
        if (index >= 0) acc += (held[index] ?? 0) * (taps[i] ?? 0);
      }
      out.push(Math.max(-32768, Math.min(32767, Math.round(acc))));
      this.#next++;
    }
    const keepFrom = Math.max(this.#base, Math.floor(this.#next * RATIO) - HALF + 1);
    this.#held = held.slice(keepFrom - this.#base);
    this.#base = keepFrom;
    return Int16Array.from(out);
  }
}

/** Little-endian PCM16 bytes as samples (copied: a base64-decoded buffer need not be aligned). */
export function pcm16Samples(bytes: Uint8Array): Int16Array {
  const samples = new Int16Array(bytes.length >> 1);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

/** Samples as little-endian PCM16 bytes. */
export function pcm16Bytes(samples: Int16Array): ArrayBuffer {
  const buffer = new ArrayBuffer(samples.length * 2);
  const view = new DataView(buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] ?? 0, true);
  return buffer;
}
