/**
 * Audio that arrived before its engine did: kept in memory, bounded, and handed over in order once
 * the engine dials in (a few hundred milliseconds at most), so the first words are not lost. Past the
 * bound the oldest frames go: the newest audio matters most.
 */

/** Two seconds of 16 kHz PCM16. */
export const PENDING_AUDIO_MAX_BYTES = 64_000;

/**
 * @example
 * const pending = new PendingAudio();
 * pending.push(frame);
 * for (const f of pending.take()) node.send(f);
 */
export class PendingAudio {
  #frames: ArrayBuffer[] = [];
  #bytes = 0;

  constructor(private readonly maxBytes = PENDING_AUDIO_MAX_BYTES) {}

  get bytes(): number {
    return this.#bytes;
  }

  push(frame: ArrayBuffer): void {
    this.#frames.push(frame);
    this.#bytes += frame.byteLength;
    while (this.#bytes > this.maxBytes && this.#frames.length > 1) {
      this.#bytes -= this.#frames.shift()?.byteLength ?? 0;
    }
  }

  /** Everything kept, oldest first; the buffer is empty afterwards. */
  take(): ArrayBuffer[] {
    const frames = this.#frames;
    this.#frames = [];
    this.#bytes = 0;
    return frames;
  }
}
