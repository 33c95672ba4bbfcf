/**
 * The whole raw surface of native/build/Release/voxedge_whisper.node (native/src/*.cpp).
 * Only native/index.ts touches these objects; everything else uses its typed wrappers.
 */

/** Options of `loadModel`; both map to whisper_context_params. */
export interface NativeLoadOptions {
  /** Use a GPU backend if the addon was built with one (no effect in a CPU build). */
  gpu: boolean;
  flashAttn: boolean;
  /** Model decodes run at once (1..256), and whisper states the model keeps; the rest wait in order. */
  concurrency: number;
}

/** Model dimensions as whisper.cpp read them. `type` comes from the encoder layer count. */
export interface NativeModelInfo {
  type: "tiny" | "base" | "small" | "medium" | "large" | "unknown";
  multilingual: boolean;
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  /** 0 f32, 1 f16, otherwise a ggml quantization (+1000 x quantization version). */
  ftype: number;
  whisperVersion: string;
}

/** Each field maps to one whisper_full_params field; undefined keeps whisper's default. */
export interface NativeDecodeOptions {
  /** ISO code or English name ("en", "german"); "auto" detects. */
  language?: string;
  /** With language "auto": detection chooses the likeliest of these codes only. */
  detectLanguages?: string[];
  translate?: boolean;
  initialPrompt?: string;
  timestamps?: boolean;
  tokenTimestamps?: boolean;
  maxTokens?: number;
  temperature?: number;
  temperatureInc?: number;
  noSpeechThreshold?: number;
  logprobThreshold?: number;
  entropyThreshold?: number;
  suppressNonSpeech?: boolean;
  noContext?: boolean;
  singleSegment?: boolean;
  threads?: number;
  /** ggml threadpool polling level 0..100 (default 50); OpenMP builds ignore it. */
  pollLevel?: number;
  /** 1 = greedy, 2..8 = beam search. */
  beamSize?: number;
  bestOf?: number;
  audioCtx?: number;
}

export interface NativeToken {
  id: number;
  text: string;
  p: number;
  logprob: number;
  /** The token's bytes as the model has them (a character may be split across tokens). */
  bytes: Uint8Array;
  /** Seconds; only with tokenTimestamps. */
  t0?: number;
  t1?: number;
}

export interface NativeSegment {
  /** Seconds. */
  t0: number;
  t1: number;
  text: string;
  noSpeechProb: number;
  /** Text tokens only (special and timestamp tokens are left out). */
  tokens: NativeToken[];
}

/** Where one decode's time went (milliseconds); the whisper figures are those of whisper_print_timings. */
export interface NativeTimings {
  /** Getting a whisper_state: an idle pooled one, or whisper_init_state (0 on a stream). */
  stateMs: number;
  /** Whether this decode had to allocate its state. */
  stateCreated: boolean;
  /** The whole native run on the worker thread, state included. */
  totalMs: number;
  melMs: number;
  encodeMs: number;
  /** One-token decoder passes. */
  decodeMs: number;
  /** Decoder passes over a few tokens at once. */
  batchdMs: number;
  /** Decoder passes over a prompt. */
  promptMs: number;
  /** Logit filtering and sampling. */
  sampleMs: number;
  encodes: number;
  decodes: number;
  batchDecodes: number;
  prompts: number;
  /**
   * Decoding passes that failed the logprob or entropy threshold, whisper's "fallbacks" (each is
   * decoded again at a higher temperature when `temperatureInc` > 0).
   */
  fallbacks: number;
}

export interface NativeResult {
  language: string;
  /** null when the language was given rather than detected. */
  languageProbability: number | null;
  segments: NativeSegment[];
  timings: NativeTimings;
}

/** The model's whisper_state pool. */
export interface NativeStateStats {
  /** States allocated by the pool so far (whisper_init_state calls). */
  created: number;
  /** Decodes (and new streams) served by an idle state instead. */
  reused: number;
  /** States the pool owns now: idle, or lent to a running decode. */
  live: number;
  idle: number;
  /** Most states the pool ever owned at once; never above `capacity`. */
  peak: number;
  /** The model's `concurrency`. */
  capacity: number;
}

/** Abort flag shared with the C++ worker; whisper polls it between graph computations. */
export interface NativeDecodeControl {
  abort(): void;
  readonly aborted: boolean;
}

export type NativeProgress = (percent: number) => void;

export interface NativeModel {
  info(): NativeModelInfo;
  /**
   * Decodes on a libuv pool thread with a whisper_state from the model's pool, reading `pcm` in place
   * (it must not be written or transferred until the promise settles). Beyond `concurrency` running
   * decodes, the call waits its turn without holding a thread.
   */
  transcribe(
    pcm: Float32Array,
    options: NativeDecodeOptions,
    control: NativeDecodeControl,
    onProgress?: NativeProgress,
  ): Promise<NativeResult>;
  /** One whisper_state kept for repeated decodes: an idle pooled one, else a new one. */
  createStream(): Promise<NativeStream>;
  stateStats(): NativeStateStats;
  /** Drops this handle's reference; in-flight decodes and open streams keep the weights alive. */
  dispose(): void;
}

export interface NativeStream {
  /** Rejects with ERR_STREAM_BUSY while a previous decode runs. Reads `pcm` in place, like transcribe. */
  decode(
    pcm: Float32Array,
    options: NativeDecodeOptions,
    control: NativeDecodeControl,
    onProgress?: NativeProgress,
  ): Promise<NativeResult>;
  readonly busy: boolean;
  /** Gives the state back to the model's pool (kept if the pool has room) once a running decode ends. */
  dispose(): void;
}

/** 0 silent, 1 error, 2 warn, 3 info, 4 debug (whisper.cpp and ggml messages on stderr). */
export type NativeLogLevel = 0 | 1 | 2 | 3 | 4;

/** A ggml backend device of type GPU (dedicated memory) and its memory as the driver reports it now. */
export interface NativeGpuDevice {
  /** ggml's device name, e.g. `CUDA0`. */
  name: string;
  /** The driver's name for the card. */
  description: string;
  freeBytes: number;
  totalBytes: number;
}

export interface NativeBinding {
  loadModel(path: string, options: NativeLoadOptions): Promise<NativeModel>;
  setLogLevel(level: NativeLogLevel): void;
  getLogLevel(): NativeLogLevel;
  version(): string;
  systemInfo(): string;
  isLanguage(code: string): boolean;
  gpuDevices(): NativeGpuDevice[];
  DecodeControl: new () => NativeDecodeControl;
}

/** Values of `err.code` on errors from the binding. */
export type NativeErrorCode =
  | "ERR_MODEL_NOT_FOUND"
  | "ERR_MODEL_UNREADABLE"
  | "ERR_MODEL_INVALID"
  | "ERR_MODEL_LOAD"
  | "ERR_MODEL_DISPOSED"
  | "ERR_STREAM_DISPOSED"
  | "ERR_STREAM_BUSY"
  | "ERR_STATE_ALLOC"
  | "ERR_INVALID_AUDIO"
  | "ERR_EMPTY_AUDIO"
  | "ERR_INVALID_OPTION"
  | "ERR_INVALID_ARG"
  | "ERR_UNKNOWN_LANGUAGE"
  | "ERR_ABORTED"
  | "ERR_DECODE_FAILED"
  | "ERR_OUT_OF_MEMORY";
