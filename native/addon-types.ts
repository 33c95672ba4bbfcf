/**
 * The whole raw surface of native/build/Release/voxedge_whisper.node (native/src/*.cpp).
 * Only native/index.ts touches these objects; everything else uses its typed wrappers.
 */

/** Options of `loadModel`; both map to whisper_context_params. */
export interface NativeLoadOptions {
  /** Use a GPU backend if the addon was built with one (no effect in a CPU build). */
  gpu: boolean;
  flashAttn: boolean;
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

export interface NativeResult {
  language: string;
  /** null when the language was given rather than detected. */
  languageProbability: number | null;
  segments: NativeSegment[];
}

/** Abort flag shared with the C++ worker; whisper polls it between graph computations. */
export interface NativeDecodeControl {
  abort(): void;
  readonly aborted: boolean;
}

export type NativeProgress = (percent: number) => void;

export interface NativeModel {
  info(): NativeModelInfo;
  /** Copies `pcm`, decodes on a libuv pool thread with a fresh whisper_state. */
  transcribe(
    pcm: Float32Array,
    options: NativeDecodeOptions,
    control: NativeDecodeControl,
    onProgress?: NativeProgress,
  ): Promise<NativeResult>;
  /** One whisper_state kept for repeated decodes. */
  createStream(): Promise<NativeStream>;
  /** Drops this handle's reference; in-flight decodes and open streams keep the weights alive. */
  dispose(): void;
}

export interface NativeStream {
  /** Rejects with ERR_STREAM_BUSY while a previous decode runs. */
  decode(
    pcm: Float32Array,
    options: NativeDecodeOptions,
    control: NativeDecodeControl,
    onProgress?: NativeProgress,
  ): Promise<NativeResult>;
  readonly busy: boolean;
  dispose(): void;
}

/** 0 silent, 1 error, 2 warn, 3 info, 4 debug (whisper.cpp and ggml messages on stderr). */
export type NativeLogLevel = 0 | 1 | 2 | 3 | 4;

export interface NativeBinding {
  loadModel(path: string, options: NativeLoadOptions): Promise<NativeModel>;
  setLogLevel(level: NativeLogLevel): void;
  getLogLevel(): NativeLogLevel;
  version(): string;
  systemInfo(): string;
  isLanguage(code: string): boolean;
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
