/**
 * Microphone audio as every audio socket wants it (/ws, /api/v1/ws/single, the rooms; protocol/live.ts):
 * PCM16 little-endian, 16 kHz, mono. Runs inside
 * the AudioWorklet (pcm-worklet.ts) on each 128-sample render quantum, so it allocates only when a
 * chunk is full.
 */
export const LIVE_RATE = 16_000;

/**
 * Resamples float samples at `inputRate` to 16 kHz (each output sample the mean of the input samples
 * its interval covers: a box filter, enough against aliasing for speech) and packs them into chunks
 * of `chunkSamples` PCM16 LE samples.
 *
 * @example
 * const encoder = new Pcm16Encoder(48_000, 1_600); // 100 ms chunks
 * for (const chunk of encoder.push(quantum)) socket.send(chunk);
 */
export class Pcm16Encoder {
  private readonly ratio: number;
  private readonly chunkSamples: number;
  /** Input position (in samples, from the stream start) where the current output sample ends. */
  private boundary: number;
  private position = 0;
  private sum = 0;
  private count = 0;
  private chunk: DataView;
  private filled = 0;

  constructor(inputRate: number, chunkSamples: number) {
    this.ratio = inputRate / LIVE_RATE;
    this.chunkSamples = chunkSamples;
    this.boundary = this.ratio;
    this.chunk = new DataView(new ArrayBuffer(chunkSamples * 2));
  }

  /** Takes the next input samples; returns the chunks they completed (often none). */
  push(input: Float32Array): ArrayBuffer[] {
    const done: ArrayBuffer[] = [];
    for (let i = 0; i < input.length; i++) {
      this.sum += input[i] ?? 0;
      this.count++;
      this.position++;
      if (this.position < this.boundary) continue;
      const value = Math.max(-1, Math.min(1, this.sum / this.count));
      const sample = Math.round(value < 0 ? value * 0x8000 : value * 0x7fff);
      this.sum = 0;
      this.count = 0;
      // Upsampling (an input below 16 kHz) writes the same value more than once.
      while (this.position >= this.boundary) {
        this.chunk.setInt16(this.filled * 2, sample, true);
        this.filled++;
        if (this.filled === this.chunkSamples) {
          done.push(this.chunk.buffer as ArrayBuffer);
          this.chunk = new DataView(new ArrayBuffer(this.chunkSamples * 2));
          this.filled = 0;
        }
        this.boundary += this.ratio;
      }
    }
    return done;
  }
}

/**
 * Loudness of a block on a 0..1 scale for a meter: RMS in dBFS mapped from -60 dB (0) to 0 dB (1).
 *
 * @example levelOf(new Float32Array([0.5, -0.5])) // ≈ 0.9
 */
export function levelOf(samples: Float32Array): number {
  let energy = 0;
  for (let i = 0; i < samples.length; i++) energy += (samples[i] ?? 0) ** 2;
  const rms = Math.sqrt(energy / Math.max(1, samples.length));
  if (rms <= 0) return 0;
  return Math.max(0, Math.min(1, (20 * Math.log10(rms) + 60) / 60));
}
