/**
 * The streaming engine of one live session: audio in, interim and final messages out. This file is
 * its decode scheduler (which decode runs when, and what it sends); `segmenter-feed.ts` feeds the
 * segmenter on its two clocks, `decode-policy.ts` decides each decode's window, tokens, language and prompt.
 *
 * - The Segmenter cuts utterances (the node's VAD, Silero by default: `vadSilenceMs` of VAD silence
 *   ends one, `silenceMs` with the energy fallback; `maxUtteranceMs` cap). Chunks go through it one at
 *   a time in arrival order (the VAD is async and stateful); at most `MAX_VAD_BACKLOG_SAMPLES` wait.
 * - Interims: while someone speaks, the growing utterance is re-decoded every `interimMs` of audio
 *   and LocalAgreement-2 keeps only the prefix two consecutive decodes agree on.
 * - Finals: at each end of utterance the whole utterance is decoded once more and post-processed as
 *   file jobs are (markers, repetition runs, silence hallucinations).
 * - Tentative finals: once the speaker has been quiet for the segmenter's tail time, the final's
 *   exact audio is known; it is decoded then, at final priority, instead of after the whole pause. If
 *   the pause becomes the end, that decode is the final (the same audio, options and prompt a later
 *   decode would use: only the latency changes); if speech goes on, it serves as an interim.
 * - Back-pressure: finals come first. Every decode of the node goes through one DecodeGate (finals
 *   before interims, a final takes a running interim's slot); a final aborts its stream's running
 *   interim, no interim starts while a final waits, and the interim cadence counts from the end of the
 *   previous interim decode, so when decoding is slower than real time the interims thin out, not the
 *   finals. Waiting finals are capped (`maxPendingFinals`; the oldest is dropped with an error message)
 *   and so is each utterance, so the audio a session holds is bounded.
 * - Encodes cover only what was heard (`audioCtx` auto): whisper's encoder context is sized to the
 *   buffer (`fitAudioCtx`), and the previous final's text is carried as the prompt of the next
 *   utterance's decodes, so a short encoder window still reads on from what was said.
 * - Frames that stop (the speaker muted, or the link stalls) end the utterance after the VAD's silence
 *   time on the wall clock: the segmenter runs on audio time and would otherwise wait for audio that
 *   never comes. Once they have stopped for the tail time, the final's audio is decoded tentatively,
 *   as at a pause heard in the audio.
 */
import { AbortError, type DecodeOptions, type Transcript as NativeTranscript } from "../../native/index.ts";
import type { FinalMessage, InterimMessage, ServerMessage } from "../../protocol/live.ts";
import { cleanTranscript } from "../../protocol/postprocess/clean-transcript.ts";
import { removeMarkers } from "../../protocol/postprocess/markers.ts";
import { collapseRepetitions } from "../../protocol/postprocess/repetition.ts";
import { EnergyVoiceActivity, type VoiceActivity } from "../vad/voice-activity.ts";
import { DecodeGate } from "./decode-gate.ts";
import { fitAudioCtx, liveDecodeOptions, promptTail } from "./decode-policy.ts";
import { LocalAgreement } from "./local-agreement.ts";
import type { LiveOptions } from "./options.ts";
import { msToSamples, SAMPLE_RATE, type SegmentEvent, type Utterance } from "./segmenter.ts";
import { describe, SegmenterFeed, seconds } from "./segmenter-feed.ts";

/** The part of a decode result the engine reads (it times decodes itself; the encoder's share when given). */
export type Transcript = Omit<NativeTranscript, "timings"> & {
  timings?: Pick<NativeTranscript["timings"], "encodeMs">;
};

/** What the engine needs of a decoder (WhisperModel.createStream() gives one). */
export interface LiveDecoder {
  /** True while a decode runs, including an aborted one that has not reached its next check point. */
  readonly busy: boolean;
  decode(pcm: Float32Array, options?: DecodeOptions): Promise<Transcript>;
  /** Resolves once no decode runs on it, an aborted one included. */
  idle(): Promise<void>;
}

/** One decode's cost: the real-time factor is decodeMs / (audioSec * 1000). */
export interface DecodeStat {
  /** `tentative`: decoded at a pause, at final priority; it is the final if the pause ends the utterance. */
  kind: "interim" | "tentative" | "final";
  audioSec: number;
  decodeMs: number;
  /** Encoder context positions asked for (0: whisper's full 1500). */
  audioCtx: number;
  /** The encoder's part of decodeMs, when the decoder reports it. */
  encodeMs: number | null;
}

/** An interim as the engine makes it: with its utterance and the language it was decoded in. */
export type EngineInterim = InterimMessage & { utterance_id: string; language: string };
export type EngineFinal = FinalMessage & { utterance_id: string };
export type EngineMessage = EngineInterim | EngineFinal | Extract<ServerMessage, { type: "error" }>;

export interface TranscriberSink {
  send(message: EngineMessage): void;
  decoded?(stat: DecodeStat): void;
}

interface FinalJob {
  utterance: Utterance;
  audio: Float32Array;
  /** The tentative final's decode of this very audio, when one ran. */
  decoded?: Promise<Transcript>;
}

/** A decode started at a tentative end: the final's audio if the utterance ends there. */
interface Tentative {
  utterance: Utterance;
  samples: number;
  result: Promise<Transcript>;
  settled: boolean;
}

/**
 * @example
 * const t = new LiveTranscriber({ interim: await model.createStream(), final: await model.createStream() },
 *   { send: (m) => ws.send(JSON.stringify(m)) }, DEFAULT_LIVE_OPTIONS, "en");
 * t.push(float32Chunk);
 * await t.flush(); // the client said `end`
 */
export class LiveTranscriber {
  readonly #feed: SegmenterFeed;
  readonly #agreement = new LocalAgreement();
  readonly #finals: FinalJob[] = [];
  #finalLoop: Promise<void> | null = null;
  #tentative: Tentative | null = null;
  #interim: AbortController | null = null;
  /** Utterance length (samples) before which no new interim starts. */
  #nextInterimAt = 0;
  /** Session sample up to which the last interim decoded: a pause adds nothing worth re-decoding. */
  #interimHeard = 0;
  #closed = false;
  /** The last final's text and language: the prompt of the next utterance's decodes in that language. */
  #prompt: { text: string; language: string } | null = null;
  /** Per utterance: its id (interims and final share it) and the language asked for when it began. */
  readonly #began = new WeakMap<Utterance, { id: string; language: string }>();

  constructor(
    private readonly decoders: { interim: LiveDecoder; final: LiveDecoder },
    private readonly sink: TranscriberSink,
    private readonly options: LiveOptions,
    private language = "auto",
    vad: VoiceActivity = new EnergyVoiceActivity(),
    /** The node's gate, shared by every stream (a private one when alone). */
    private readonly gate = new DecodeGate(options.cores, options.threadsPerDecode),
  ) {
    this.#feed = new SegmenterFeed(
      {
        silenceMs: vad.kind === "silero" ? options.vadSilenceMs : options.silenceMs,
        maxUtteranceMs: options.maxUtteranceMs,
        vad: vad.stream(),
      },
      {
        segments: (events) => {
          for (const event of events) this.#onSegment(event);
        },
        heard: () => this.#maybeInterim(),
        error: (message) => this.sink.send({ type: "error", message }),
      },
    );
  }

  /** Takes the next chunk of 16 kHz mono audio. */
  push(pcm: Float32Array): void {
    if (!this.#closed) this.#feed.push(pcm);
  }

  /**
   * Language for the following utterances: a whisper code, or "auto" (detected once per utterance).
   * The utterance being spoken keeps the language it began with.
   */
  setLanguage(language: string): void {
    this.language = language;
  }

  /** Ends the current utterance and resolves when every final is out. */
  async flush(): Promise<void> {
    if (this.#closed) return;
    await this.#feed.flush();
    while (this.#finalLoop) await this.#finalLoop;
  }

  /** Stops at once: the running interim is aborted, waiting finals dropped, nothing more is sent. */
  close(): void {
    this.#closed = true;
    this.#feed.close();
    this.#interim?.abort();
    this.#finals.length = 0;
  }

  #onSegment(event: SegmentEvent): void {
    if (event.type === "tentative_end") {
      this.#decodeTentative(event.utterance, event.audio);
      return;
    }
    if (event.type === "start") {
      this.#began.set(event.utterance, { id: crypto.randomUUID(), language: this.language });
      this.#agreement.reset();
      this.#nextInterimAt = msToSamples(this.options.interimMs);
      return;
    }
    this.#interim?.abort(); // finals first
    const tentative = this.#tentative;
    const same = tentative?.utterance === event.utterance && tentative.samples === event.audio.length;
    this.#finals.push({
      utterance: event.utterance,
      audio: event.audio,
      ...(same && { decoded: tentative.result }),
    });
    if (same) this.#tentative = null;
    if (this.#finals.length > this.options.maxPendingFinals) {
      const dropped = this.#finals.shift();
      const lost = seconds(dropped?.audio.length ?? 0);
      this.sink.send({
        type: "error",
        message: `decoding fell behind real time: dropped ${lost} s of speech`,
      });
    }
    this.#finalLoop ??= this.#runFinals().finally(() => {
      this.#finalLoop = null;
    });
  }

  async #runFinals(): Promise<void> {
    for (let job = this.#finals.shift(); job && !this.#closed; job = this.#finals.shift()) {
      await this.#final(job);
    }
  }

  async #final({ utterance, audio, decoded }: FinalJob): Promise<void> {
    let transcript: Transcript;
    try {
      transcript = (await decoded?.catch(() => null)) ?? (await this.#decodeFinal(utterance, audio));
    } catch (error) {
      if (!this.#closed)
        this.sink.send({ type: "error", message: `final decode failed: ${describe(error)}` });
      return;
    }
    const offset = utterance.startSample / SAMPLE_RATE;
    const segments = transcript.segments.map((s) => ({ ...s, start: offset + s.start, end: offset + s.end }));
    const text = cleanTranscript(segments, transcript.language).text;
    if (!text || this.#closed) return;
    this.#prompt = { text: promptTail(text), language: transcript.language };
    this.sink.send({
      type: "final",
      text,
      start: seconds(utterance.speechStart),
      end: seconds(utterance.lastVoicedEnd),
      language: transcript.language,
      utterance_id: this.#idOf(utterance),
    });
  }

  /** The final decoder is free once a tentative decode on it has finished. */
  async #decodeFinal(utterance: Utterance, audio: Float32Array): Promise<Transcript> {
    const tentative = this.#tentative;
    if (tentative) {
      await tentative.result.catch(() => undefined);
      if (this.#tentative === tentative) this.#tentative = null;
    }
    return this.#decode("final", this.decoders.final, audio, utterance, this.#audioCtx(audio.length));
  }

  /**
   * Decodes the final's audio as soon as the speaker pauses, unless a final is on its way already or
   * this very audio was decoded already (a pause heard, then the frames stopped).
   * Not aborted when speech goes on: its text is then an interim of the utterance so far.
   */
  #decodeTentative(utterance: Utterance, audio: Float32Array): void {
    const previous = this.#tentative;
    if (this.#closed || this.#finalLoop || (previous && !previous.settled)) return;
    if (previous?.utterance === utterance && previous.samples === audio.length) return;
    this.#interim?.abort(); // it decodes less than this
    this.#interimHeard = utterance.startSample + audio.length; // the pause adds nothing to re-decode
    const ctx = this.#audioCtx(audio.length);
    const result = this.#decode("tentative", this.decoders.final, audio, utterance, ctx);
    const tentative: Tentative = { utterance, samples: audio.length, result, settled: false };
    this.#tentative = tentative;
    result
      .then((transcript) => {
        if (this.#feed.current === utterance) this.#showInterim(utterance, audio.length, transcript);
      })
      .catch(() => undefined) // the final decodes again when it needs to
      .finally(() => {
        tentative.settled = true;
      });
  }

  #maybeInterim(): void {
    const utterance = this.#feed.current;
    const tentative = this.#tentative && !this.#tentative.settled;
    if (
      !utterance ||
      this.#closed ||
      this.#interim ||
      this.#finalLoop ||
      tentative ||
      this.decoders.interim.busy
    )
      return;
    if (utterance.length < this.#nextInterimAt || utterance.lastVoicedEnd <= this.#interimHeard) return;
    const controller = new AbortController();
    this.#interim = controller;
    const audio = utterance.audio();
    this.#interimHeard = utterance.startSample + audio.length;
    const context = this.#audioCtx(audio.length);
    this.#decode("interim", this.decoders.interim, audio, utterance, context, controller.signal)
      .then((transcript) => {
        if (controller.signal.aborted || this.#feed.current !== utterance) return;
        this.#showInterim(utterance, audio.length, transcript);
      })
      .catch((error: unknown) => {
        if (!(error instanceof AbortError) && !this.#closed) {
          this.sink.send({ type: "error", message: `interim decode failed: ${describe(error)}` });
        }
      })
      .finally(() => {
        this.#interim = null;
        // the cadence counts from here, not from the decode's start: a slow decoder gets fewer interims
        if (this.#feed.current === utterance) {
          this.#nextInterimAt = utterance.length + msToSamples(this.options.interimMs);
        }
      });
  }

  /** Sends what two consecutive decodes of the utterance agree on (LocalAgreement-2). */
  #showInterim(utterance: Utterance, samples: number, transcript: Transcript): void {
    if (this.#closed) return;
    const hypothesis = collapseRepetitions(removeMarkers(transcript.segments.map((s) => s.text).join(" ")));
    const settled = this.#agreement.update(hypothesis);
    if (!settled) return;
    this.sink.send({
      type: "interim",
      text: settled,
      start: seconds(utterance.speechStart),
      end: seconds(utterance.startSample + samples),
      utterance_id: this.#idOf(utterance),
      language: transcript.language,
    });
  }

  #audioCtx(samples: number): number {
    return this.options.audioCtx === "auto" ? fitAudioCtx(samples) : 0;
  }

  async #decode(
    kind: DecodeStat["kind"],
    decoder: LiveDecoder,
    audio: Float32Array,
    utterance: Utterance,
    audioCtx: number,
    signal?: AbortSignal,
  ): Promise<Transcript> {
    const transcript = await this.gate.run(
      kind === "interim" ? "interim" : "final",
      async (admitted, threads) => {
        const options = liveDecodeOptions({
          asked: this.#began.get(utterance)?.language ?? this.language,
          detected: utterance.language ?? null,
          carried: this.#prompt,
          samples: audio.length,
          audioCtx,
          maxTokens: this.options.maxTokens,
          threads,
          signal: admitted,
        });
        const started = performance.now();
        const decoded = await decoder
          .decode(audio, options)
          // an aborted decode holds its slot until its threads stop: the next one gets the cores
          .finally(() => decoder.idle());
        this.sink.decoded?.({
          kind,
          audioSec: audio.length / SAMPLE_RATE,
          decodeMs: performance.now() - started,
          audioCtx,
          encodeMs: decoded.timings?.encodeMs ?? null,
        });
        return decoded;
      },
      signal,
    );
    utterance.language ??= transcript.language;
    return transcript;
  }

  #idOf(utterance: Utterance): string {
    return this.#began.get(utterance)?.id ?? "";
  }
}
