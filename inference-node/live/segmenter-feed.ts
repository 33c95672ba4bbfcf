/**
 * The segmenter fed on its two clocks: audio chunks go through it one at a time in arrival order (its
 * VAD is async and stateful; at most `MAX_VAD_BACKLOG_SAMPLES` wait), and the wall clock stands in for
 * audio that stops coming (a muted speaker, a stalled link): stopped for the segmenter's tail time,
 * the utterance gets a tentative end; stopped for the silence time, it ends.
 */

import type { VoiceActivityStream } from "../vad/voice-activity.ts";
import { SAMPLE_RATE, type SegmentEvent, Segmenter, type Utterance } from "./segmenter.ts";

/** Audio allowed to wait for the VAD (10 s); Silero labels audio ~100x faster than real time. */
const MAX_VAD_BACKLOG_SAMPLES = 10 * SAMPLE_RATE;

export interface FeedHandlers {
  /** Segment events, in order, from audio or from the wall clock. */
  segments(events: SegmentEvent[]): void;
  /** A chunk went through the segmenter (the moment to consider an interim). */
  heard(): void;
  /** A recoverable problem worth telling the client. */
  error(message: string): void;
}

export class SegmenterFeed {
  readonly #segmenter: Segmenter;
  /** Chunks waiting for the VAD, chained in arrival order, and how many samples they hold. */
  #chain: Promise<void> = Promise.resolve();
  #backlog = 0;
  /** Fire when frames stop arriving: for the tail time (a tentative final), for the silence time (the end). */
  #stallTimer: ReturnType<typeof setTimeout> | null = null;
  #quietTimer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(
    private readonly settings: { silenceMs: number; maxUtteranceMs: number; vad: VoiceActivityStream },
    private readonly handlers: FeedHandlers,
  ) {
    this.#segmenter = new Segmenter(settings);
  }

  /** The utterance being spoken, if any. */
  get current(): Utterance | null {
    return this.#segmenter.current;
  }

  /** Takes the next chunk of 16 kHz mono audio. */
  push(pcm: Float32Array): void {
    if (this.#closed) return;
    if (this.#backlog + pcm.length > MAX_VAD_BACKLOG_SAMPLES) {
      this.handlers.error(`voice detection fell behind real time: dropped ${seconds(pcm.length)} s of audio`);
      return;
    }
    this.#backlog += pcm.length;
    this.#armTimers();
    this.#chain = this.#chain
      .then(() => this.#segment(pcm))
      .catch((error: unknown) => {
        if (!this.#closed) this.handlers.error(`voice detection failed: ${describe(error)}`);
      })
      .finally(() => {
        this.#backlog -= pcm.length;
      });
  }

  /** Ends the current utterance once every chunk before is segmented. */
  async flush(): Promise<void> {
    if (this.#closed) return;
    this.#stopTimers();
    await this.#chain;
    this.handlers.segments(this.#segmenter.flush());
  }

  close(): void {
    this.#closed = true;
    this.#stopTimers();
  }

  async #segment(pcm: Float32Array): Promise<void> {
    if (this.#closed) return;
    this.handlers.segments(await this.#segmenter.push(pcm));
    this.handlers.heard();
  }

  /**
   * Frames stopped for the silence time: the utterance being spoken ends as a pause would end it, so a
   * speaker who mutes right after a sentence still gets its final at once. Stopped for the tail time:
   * the final's audio is decoded then, as at a pause, so that final is ready when the silence time is
   * up (a stall that ends sooner only costs an interim).
   */
  #armTimers(): void {
    this.#stopTimers();
    const later = (ms: number, then: () => void) => {
      const timer = setTimeout(() => {
        this.#chain = this.#chain.then(() => {
          if (!this.#closed) then();
        });
      }, ms);
      timer.unref?.();
      return timer;
    };
    this.#stallTimer = later(this.#segmenter.tailMs, () => {
      const tentative = this.#segmenter.tentativeFlush();
      if (tentative) this.handlers.segments([tentative]);
    });
    this.#quietTimer = later(this.settings.silenceMs, () => this.handlers.segments(this.#segmenter.flush()));
  }

  #stopTimers(): void {
    if (this.#stallTimer) clearTimeout(this.#stallTimer);
    if (this.#quietTimer) clearTimeout(this.#quietTimer);
    this.#stallTimer = null;
    this.#quietTimer = null;
  }
}

export const seconds = (samples: number) => Math.round((samples / SAMPLE_RATE) * 1000) / 1000;

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
