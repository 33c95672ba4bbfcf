/**
 * Endpointing for live audio: an energy VAD decides per 10 ms frame, a hangover of `silenceMs` turns
 * voiced frames into utterances, and every utterance lives in its own fixed-size buffer (never more
 * than `maxUtteranceMs` plus the pre-roll). A pause of `silenceMs` ends an utterance, so does reaching
 * the maximum length (the next one starts at once, clean). Everything runs on audio time (samples
 * received), not on the wall clock, so a test that streams faster than real time sees the same cuts.
 */
import { EnergyVad, type VadOptions } from "../diarize/vad.ts";

export const SAMPLE_RATE = 16_000;
const FRAME = 160; // 10 ms
const MIN_DB = -120; // digital silence would be -Infinity dBFS

export interface SegmenterOptions {
  /** Unvoiced time that ends an utterance (the hangover). Default 600 ms. */
  silenceMs?: number;
  /** An utterance is cut (and a final made) at this length. Default 15 000 ms. */
  maxUtteranceMs?: number;
  /** Audio kept from before the speech onset, so the first word is not clipped. Default 200 ms. */
  preRollMs?: number;
  /** Utterances with less voiced audio than this are noise (clicks, bumps): dropped. Default 150 ms. */
  minSpeechMs?: number;
  /** Voiced frames in a row that start an utterance. Default 3 (30 ms). */
  onsetFrames?: number;
  /** Trailing audio kept after the last voiced frame: whisper ends words better with some. Default 200 ms. */
  tailMs?: number;
  vad?: VadOptions;
}

/** One utterance's audio; `audio()` views stay valid after the utterance ends (its buffer is never reused). */
export class Utterance {
  readonly #buffer: Float32Array;
  #length = 0;
  /** Session sample index of buffer[0] (pre-roll included). */
  readonly startSample: number;
  /** Session sample index of the first voiced frame (the onset). */
  readonly speechStart: number;
  /** Session sample index just after the last voiced frame. */
  lastVoicedEnd: number;
  voicedFrames: number;
  /** Language detected by the first decode of this utterance (reused by the later ones). */
  language: string | null = null;

  /** `preRoll` ends at session sample `position`; its last `onsetSamples` are the voiced onset. */
  constructor(capacity: number, preRoll: Float32Array, position: number, onsetSamples: number) {
    this.#buffer = new Float32Array(capacity);
    this.#buffer.set(preRoll);
    this.#length = preRoll.length;
    this.startSample = position - preRoll.length;
    this.speechStart = position - Math.min(onsetSamples, preRoll.length);
    this.lastVoicedEnd = position;
    this.voicedFrames = Math.round((position - this.speechStart) / FRAME);
  }

  get length(): number {
    return this.#length;
  }

  get full(): boolean {
    return this.#length + FRAME > this.#buffer.length;
  }

  append(frame: Float32Array): void {
    this.#buffer.set(frame, this.#length);
    this.#length += frame.length;
  }

  /** The first `samples` samples (default all), as a view. */
  audio(samples = this.#length): Float32Array {
    return this.#buffer.subarray(0, Math.min(samples, this.#length));
  }
}

export type EndCause = "pause" | "max_length" | "flush";

export type SegmentEvent =
  | { type: "start"; utterance: Utterance }
  /** `audio`: the utterance up to its last voiced frame plus the tail, to decode for the final. */
  | { type: "end"; utterance: Utterance; cause: EndCause; audio: Float32Array };

/**
 * Cuts a live PCM stream into utterances.
 *
 * @example
 * const seg = new Segmenter({ silenceMs: 600 });
 * for (const event of seg.push(pcmChunk)) if (event.type === "end") decode(event.utterance.audio());
 */
export class Segmenter {
  readonly #o: Required<Omit<SegmenterOptions, "vad">>;
  readonly #vad: EnergyVad;
  /** Recent frames while nobody speaks: the pre-roll (plus the onset frames) of the next utterance. */
  readonly #ring: Float32Array;
  #ringFill = 0;
  #carry = new Float32Array(0);
  #position = 0;
  #onset = 0;
  #silentFrames = 0;
  #current: Utterance | null = null;

  constructor(options: SegmenterOptions = {}) {
    this.#o = {
      silenceMs: 600,
      maxUtteranceMs: 15_000,
      preRollMs: 200,
      minSpeechMs: 150,
      onsetFrames: 3,
      tailMs: 200,
      ...options,
    };
    // only its per-frame decision is used; its interval log grows by two numbers per pause (~16 B)
    this.#vad = new EnergyVad(options.vad);
    this.#ring = new Float32Array(msToSamples(this.#o.preRollMs) + this.#o.onsetFrames * FRAME);
  }

  /** Samples received so far (session audio time). */
  get position(): number {
    return this.#position;
  }

  /** The utterance being spoken, if any. */
  get current(): Utterance | null {
    return this.#current;
  }

  push(pcm: Float32Array): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    const buf = new Float32Array(this.#carry.length + pcm.length);
    buf.set(this.#carry);
    buf.set(pcm, this.#carry.length);
    let at = 0;
    for (; at + FRAME <= buf.length; at += FRAME) this.#frame(buf.subarray(at, at + FRAME), events);
    this.#carry = buf.slice(at);
    return events;
  }

  /** Ends the current utterance now (the client said `end`). */
  flush(): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    if (this.#current) this.#end("flush", events);
    return events;
  }

  #frame(frame: Float32Array, events: SegmentEvent[]): void {
    const voiced = this.#vad.update(energyDb(frame));
    this.#position += FRAME;
    const current = this.#current;
    if (!current) {
      this.#remember(frame);
      this.#onset = voiced ? this.#onset + 1 : 0;
      if (this.#onset >= this.#o.onsetFrames) this.#start(events);
      return;
    }
    current.append(frame);
    if (voiced) {
      current.voicedFrames++;
      current.lastVoicedEnd = this.#position;
      this.#silentFrames = 0;
    } else if (++this.#silentFrames * 10 >= this.#o.silenceMs) {
      this.#end("pause", events);
      return;
    }
    if (current.full) {
      this.#end("max_length", events);
      // speech goes on: the next utterance starts clean, right here
      if (voiced) this.#start(events);
    }
  }

  #start(events: SegmentEvent[]): void {
    const preRoll = this.#ring.slice(0, this.#ringFill);
    const capacity = msToSamples(this.#o.maxUtteranceMs) + this.#ring.length;
    const utterance = new Utterance(capacity, preRoll, this.#position, this.#onset * FRAME);
    this.#current = utterance;
    this.#ringFill = 0;
    this.#onset = 0;
    this.#silentFrames = 0;
    events.push({ type: "start", utterance });
  }

  #end(cause: EndCause, events: SegmentEvent[]): void {
    const utterance = this.#current;
    this.#current = null;
    this.#silentFrames = 0;
    if (!utterance || utterance.voicedFrames * 10 < this.#o.minSpeechMs) return;
    const samples = utterance.lastVoicedEnd - utterance.startSample + msToSamples(this.#o.tailMs);
    events.push({ type: "end", utterance, cause, audio: utterance.audio(samples) });
  }

  #remember(frame: Float32Array): void {
    const ring = this.#ring;
    if (this.#ringFill + FRAME > ring.length) {
      ring.copyWithin(0, FRAME, this.#ringFill);
      this.#ringFill -= FRAME;
    }
    ring.set(frame, this.#ringFill);
    this.#ringFill += FRAME;
  }
}

/** Energy of a frame in dBFS. */
export function energyDb(frame: Float32Array): number {
  let sum = 0;
  for (const x of frame) sum += x * x;
  return Math.max(MIN_DB, 10 * Math.log10(sum / frame.length));
}

export const msToSamples = (ms: number): number => Math.round((ms * SAMPLE_RATE) / 1000);
