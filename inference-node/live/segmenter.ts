/**
 * Endpointing for live audio: a voice activity detector decides per frame (Silero: 32 ms frames; the
 * energy fallback: 10 ms), a hangover of `silenceMs` turns voiced frames into utterances, and every utterance lives in its own fixed-size buffer (never more
 * than `maxUtteranceMs` plus the pre-roll). A pause of `silenceMs` ends an utterance, so does reaching
 * the maximum length (the next one starts at once, clean). Everything runs on audio time (samples
 * received), not on the wall clock, so a test that streams faster than real time sees the same cuts.
 */
import { EnergyVoiceActivity, type VoiceActivityStream } from "../vad/voice-activity.ts";

export const SAMPLE_RATE = 16_000;

export interface SegmenterOptions {
  /** Unvoiced time that ends an utterance (the hangover). Default 600 ms. */
  silenceMs?: number;
  /** An utterance is cut (and a final made) at this length. Default 15 000 ms. */
  maxUtteranceMs?: number;
  /** Audio kept from before the speech onset, so the first word is not clipped. Default 200 ms. */
  preRollMs?: number;
  /** Utterances with less voiced audio than this are noise (clicks, bumps): dropped. Default 150 ms. */
  minSpeechMs?: number;
  /** Voiced audio in a row that starts an utterance, rounded up to whole VAD frames. Default 30 ms. */
  onsetMs?: number;
  /** Trailing audio kept after the last voiced frame: whisper ends words better with some. Default 200 ms. */
  tailMs?: number;
  /** This stream's voice activity detector. Default: a fresh energy VAD stream. */
  vad?: VoiceActivityStream;
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
  constructor(
    capacity: number,
    preRoll: Float32Array,
    position: number,
    onsetSamples: number,
    private readonly frameSamples: number,
  ) {
    this.#buffer = new Float32Array(capacity);
    this.#buffer.set(preRoll);
    this.#length = preRoll.length;
    this.startSample = position - preRoll.length;
    this.speechStart = position - Math.min(onsetSamples, preRoll.length);
    this.lastVoicedEnd = position;
    this.voicedFrames = Math.round((position - this.speechStart) / frameSamples);
  }

  get length(): number {
    return this.#length;
  }

  get full(): boolean {
    return this.#length + this.frameSamples > this.#buffer.length;
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
  /**
   * The speaker has been quiet for the tail time: `audio` is exactly what the `end` event will carry if
   * no voiced frame comes before the pause is long enough, so its decode can start now.
   */
  | { type: "tentative_end"; utterance: Utterance; audio: Float32Array }
  /** `audio`: the utterance up to its last voiced frame plus the tail, to decode for the final. */
  | { type: "end"; utterance: Utterance; cause: EndCause; audio: Float32Array };

/**
 * Cuts a live PCM stream into utterances.
 *
 * @example
 * const seg = new Segmenter({ silenceMs: 500, vad: silero.stream() });
 * for (const event of await seg.push(pcmChunk)) if (event.type === "end") decode(event.utterance.audio());
 */
export class Segmenter {
  readonly #o: Required<Omit<SegmenterOptions, "vad">>;
  readonly #vad: VoiceActivityStream;
  readonly #frame: number;
  readonly #frameMs: number;
  readonly #onsetFrames: number;
  /** Unvoiced frames after which the final's audio (speech plus tail) is all there. */
  readonly #tailFrames: number;
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
      onsetMs: 30,
      tailMs: 200,
      ...options,
    };
    this.#vad = options.vad ?? new EnergyVoiceActivity().stream();
    this.#frame = this.#vad.frameSamples;
    this.#frameMs = (this.#frame * 1000) / SAMPLE_RATE;
    this.#onsetFrames = Math.max(1, Math.ceil(this.#o.onsetMs / this.#frameMs));
    this.#tailFrames = Math.max(1, Math.ceil(this.#o.tailMs / this.#frameMs));
    this.#ring = new Float32Array(msToSamples(this.#o.preRollMs) + this.#onsetFrames * this.#frame);
  }

  /** Samples received so far (session audio time). */
  get position(): number {
    return this.#position;
  }

  /** The utterance being spoken, if any. */
  get current(): Utterance | null {
    return this.#current;
  }

  /** Takes the next chunk; call again only once the previous call has resolved (the VAD is stateful). */
  async push(pcm: Float32Array): Promise<SegmentEvent[]> {
    const events: SegmentEvent[] = [];
    const buf = new Float32Array(this.#carry.length + pcm.length);
    buf.set(this.#carry);
    buf.set(pcm, this.#carry.length);
    const n = this.#frame;
    let at = 0;
    for (; at + n <= buf.length; at += n) {
      const frame = buf.subarray(at, at + n);
      this.#step(frame, await this.#vad.isSpeech(frame), events);
    }
    this.#carry = buf.slice(at);
    return events;
  }

  /** Trailing audio a final keeps after the last voiced frame, and the quiet that makes it tentative. */
  get tailMs(): number {
    return this.#o.tailMs;
  }

  /**
   * What `flush()` would end now, as a tentative end: at the tail of a pause heard in the audio, or
   * for a caller that sees the frames stop (the wall clock says the speaker may be done; the audio
   * never will). Null with no speech to end.
   */
  tentativeFlush(): Extract<SegmentEvent, { type: "tentative_end" }> | null {
    const current = this.#current;
    if (!current || !this.#heldSpeech(current)) return null;
    return { type: "tentative_end", utterance: current, audio: this.#finalAudio(current) };
  }

  /** Ends the current utterance now (the client said `end`). */
  flush(): SegmentEvent[] {
    const events: SegmentEvent[] = [];
    if (this.#current) this.#end("flush", events);
    return events;
  }

  #step(frame: Float32Array, voiced: boolean, events: SegmentEvent[]): void {
    this.#position += frame.length;
    const current = this.#current;
    if (!current) {
      this.#remember(frame);
      this.#onset = voiced ? this.#onset + 1 : 0;
      if (this.#onset >= this.#onsetFrames) this.#start(events);
      return;
    }
    current.append(frame);
    if (voiced) {
      current.voicedFrames++;
      current.lastVoicedEnd = this.#position;
      this.#silentFrames = 0;
    } else if (++this.#silentFrames * this.#frameMs >= this.#o.silenceMs) {
      this.#end("pause", events);
      return;
    } else if (this.#silentFrames === this.#tailFrames) {
      const tentative = this.tentativeFlush();
      if (tentative) events.push(tentative);
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
    const utterance = new Utterance(
      capacity,
      preRoll,
      this.#position,
      this.#onset * this.#frame,
      this.#frame,
    );
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
    if (!utterance || !this.#heldSpeech(utterance)) return;
    events.push({ type: "end", utterance, cause, audio: this.#finalAudio(utterance) });
  }

  /** Enough voiced audio to be speech, not a click. */
  #heldSpeech(utterance: Utterance): boolean {
    return utterance.voicedFrames * this.#frameMs >= this.#o.minSpeechMs;
  }

  /** What a final decodes: the utterance up to its last voiced frame, plus the tail. */
  #finalAudio(utterance: Utterance): Float32Array {
    return utterance.audio(utterance.lastVoicedEnd - utterance.startSample + msToSamples(this.#o.tailMs));
  }

  #remember(frame: Float32Array): void {
    const ring = this.#ring;
    const n = frame.length;
    if (this.#ringFill + n > ring.length) {
      ring.copyWithin(0, n, this.#ringFill);
      this.#ringFill -= n;
    }
    ring.set(frame, this.#ringFill);
    this.#ringFill += n;
  }
}

export const msToSamples = (ms: number): number => Math.round((ms * SAMPLE_RATE) / 1000);
