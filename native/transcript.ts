/**
 * Public decode options and results of the whisper addon, and their mapping to the raw binding.
 */
import type { NativeDecodeOptions, NativeErrorCode, NativeResult, NativeTimings } from "./addon-types.ts";
import type { Threading } from "./thread-policy.ts";

/** Where a decode's time went, in milliseconds (see NativeTimings). */

export type DecodeTimings = NativeTimings;

export interface DecodeOptions {
  /** ISO code ("en", "de") or English name; "auto" or undefined detects it (multilingual models). */
  language?: string;
  /** Translate to English. */
  translate?: boolean;
  /** Text the decoder is conditioned on, e.g. names and jargon to expect. */
  initialPrompt?: string;
  /** Segment timestamps (default true). Without them whisper decodes up to 220 tokens per 30 s window. */
  timestamps?: boolean;
  /** With `language` "auto" (or unset): detection picks the likeliest of these codes only. */
  detectLanguages?: string[];
  /** Per-token t0/t1 (experimental in whisper.cpp). */
  tokenTimestamps?: boolean;
  /** Cap on tokens per segment (0 = none): bounds the worst-case decode time. */
  maxTokens?: number;
  /** Initial sampling temperature (default 0). */
  temperature?: number;
  /** Temperature step of the fallback re-decodes (default 0.2); 0 disables fallback. */
  temperatureInc?: number;
  noSpeechThreshold?: number;
  logprobThreshold?: number;
  entropyThreshold?: number;
  /** Suppress non-speech tokens (music notes, brackets...). */
  suppressNonSpeech?: boolean;
  /** Do not condition each window on the previous window's text. */
  noContext?: boolean;
  /** One segment for the whole input (useful for short live buffers). */
  singleSegment?: boolean;
  /** CPU threads for this decode (default: the model's `threads`). */
  threads?: number;
  /** Greedy decoding (default). Mutually exclusive with beamSize > 1. */
  greedy?: boolean;
  /** Beam search width (2..8); 1 = greedy. */
  beamSize?: number;
  /** Experimental encoder context override (0 = full 1500): faster on short audio, less accurate. */
  audioCtx?: number;
  /** Called with 0..100 as windows complete. */
  onProgress?: (percent: number) => void;
  /** Aborting rejects the decode with an AbortError at once; the native work stops at its next check. */
  signal?: AbortSignal;
}

export interface Token {
  id: number;
  /** Token text; a multi-byte character split across tokens shows as U+FFFD here. */
  text: string;
  /** Probability and log-probability of the token. */
  p: number;
  logprob: number;
  /** The token's bytes as the model has them: a character split across tokens is whole only here. */
  bytes: Uint8Array;
  /** Seconds, only with `tokenTimestamps`. */
  t0?: number;
  t1?: number;
}

export interface Segment {
  /** Seconds from the start of the input. */
  start: number;
  end: number;
  /** As whisper emits it (usually with a leading space). */
  text: string;
  tokens: Token[];
  /** Mean log-probability of the text tokens; NaN for a segment without text tokens. */
  avgLogprob: number;
  noSpeechProb: number;
}

export interface Transcript {
  segments: Segment[];
  language: string;
  /** Detection probability of `language`; null when it was given, not detected. */
  languageProbability: number | null;
  /** State set-up, log-mel, encoder, decoder and sampling time of this decode. */
  timings: DecodeTimings;
}

export type WhisperErrorCode = NativeErrorCode | "ERR_ADDON_NOT_BUILT";

/** Errors from the addon: a message and a stable `code`. */
export class WhisperError extends Error {
  readonly code: WhisperErrorCode;

  constructor(code: WhisperErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "WhisperError";
    this.code = code;
  }
}

/** Rejection of an aborted decode, shaped like Node's own AbortError. */
export class AbortError extends Error {
  readonly code = "ABORT_ERR";

  constructor(reason?: unknown) {
    super("The decode was aborted", { cause: reason });
    this.name = "AbortError";
  }
}

/**
 * Maps public options onto the binding's. `threads` (the call's, else the model's) is the most the
 * decode may use; `threading` says how many it gets now and how hard they poll (thread-policy.ts).
 */
export function toNativeOptions(
  opts: DecodeOptions,
  threads: number,
  threading: (requested: number) => Threading,
): NativeDecodeOptions {
  if (opts.greedy === true && (opts.beamSize ?? 1) > 1) {
    throw new TypeError("options 'greedy: true' and 'beamSize > 1' conflict");
  }
  const { onProgress: _p, signal: _s, greedy: _g, ...rest } = opts;
  const requested = opts.threads ?? threads;
  // an invalid count goes to the addon as given: its option check refuses it with a TypeError
  const valid = Number.isInteger(requested) && requested >= 1;
  const native: NativeDecodeOptions = {
    ...rest,
    ...(valid ? threading(requested) : { threads: requested }),
    beamSize: opts.beamSize ?? 1,
  };
  if (opts.language === undefined) native.language = "auto";
  for (const key of Object.keys(native) as (keyof NativeDecodeOptions)[]) {
    if (native[key] === undefined) delete native[key];
  }
  return native;
}

export function toTranscript(res: NativeResult): Transcript {
  return {
    language: res.language,
    languageProbability: res.languageProbability,
    timings: res.timings,
    segments: res.segments.map((s) => ({
      start: s.t0,
      end: s.t1,
      text: s.text,
      tokens: s.tokens,
      avgLogprob: s.tokens.length
        ? s.tokens.reduce((sum, t) => sum + t.logprob, 0) / s.tokens.length
        : Number.NaN,
      noSpeechProb: s.noSpeechProb,
    })),
  };
}

/** Gives binding errors (plain Error/TypeError with `code`) the WhisperError class; keeps TypeErrors. */
export function toWhisperError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && !(err instanceof TypeError) && typeof code === "string") {
    return new WhisperError(code as WhisperErrorCode, err.message);
  }
  return err;
}
