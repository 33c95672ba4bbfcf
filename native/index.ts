/**
 * Typed, safe API over the whisper.cpp addon. The only module that loads the .node file.
 *
 * @example
 * const model = await loadModel("models/ggml-base.bin", { threads: 2 });
 * const { segments, language } = await model.transcribe(pcm16kMono, { signal: AbortSignal.timeout(60_000) });
 * await model.dispose();
 */
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import type {
  NativeBinding,
  NativeDecodeControl,
  NativeGpuDevice,
  NativeLogLevel,
  NativeModel,
  NativeModelInfo,
  NativeStateStats,
} from "./addon-types.ts";
import { setPlatformProcess, startCpuMeter } from "./cpu-meter.ts";
import { OrderedStarts } from "./ordered-starts.ts";
import { runDecode } from "./run-decode.ts";
import { StreamDecoder } from "./stream.ts";
import { type ThreadDecisions, threadDecisions } from "./thread-decision.ts";
import type { ThreadPolicy } from "./thread-policy.ts";
import {
  type DecodeOptions,
  type Transcript,
  toNativeOptions,
  toWhisperError,
  WhisperError,
} from "./transcript.ts";

export type {
  DecodeOptions,
  DecodeTimings,
  Segment,
  Token,
  Transcript,
  WhisperErrorCode,
} from "./transcript.ts";
export { AbortError, WhisperError } from "./transcript.ts";
export type ModelInfo = NativeModelInfo;
export type StateStats = NativeStateStats;
export type GpuDevice = NativeGpuDevice;
export { StreamDecoder };
export type LogLevel = "silent" | "error" | "warn" | "info" | "debug";

const ADDON_PATH = "./build/Release/voxedge_whisper.node";
const LOG_LEVELS: Record<LogLevel, NativeLogLevel> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };
let loaded: NativeBinding | null = null;

/**
 * libgomp's spin before a waiting thread sleeps, for builds with VOXEDGE_OPENMP=1 (the default build
 * uses ggml's own threadpool and ignores it), unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set.
 * ggml's threads meet at a barrier after every operation; libgomp's default spins ~300k rounds there,
 * so beside other work a thread whose partner is descheduled burns the CPU that partner needs (base
 * on 2 busy cores: 200-430 ms per token instead of 11). 100 rounds is the spin libgomp itself falls
 * back to when it runs more threads than there are CPUs.
 */
const OMP_SPIN_ROUNDS = "100";

/** Loads the .node once, on first use, so importing this module never fails where it is not built. */
function binding(): NativeBinding {
  if (loaded) return loaded;
  // libgomp reads these once, when the addon loads it
  if (process.env.OMP_WAIT_POLICY === undefined && process.env.GOMP_SPINCOUNT === undefined) {
    process.env.GOMP_SPINCOUNT = OMP_SPIN_ROUNDS;
  }
  try {
    loaded = createRequire(import.meta.url)(ADDON_PATH) as NativeBinding;
  } catch (err) {
    throw new WhisperError("ERR_ADDON_NOT_BUILT", "whisper addon not built: run `npm run build:native`", {
      cause: err,
    });
  }
  // whisper.cpp logs every load and decode to stderr; silent unless VOXEDGE_WHISPER_LOG asks for it
  const env = process.env.VOXEDGE_WHISPER_LOG;
  loaded.setLogLevel(env === "1" || env === "true" ? LOG_LEVELS.info : (LOG_LEVELS[env as LogLevel] ?? 0));
  return loaded;
}

/** Routes whisper.cpp/ggml messages of `level` and above to stderr. Default "silent". */
export function setLogLevel(level: LogLevel): void {
  binding().setLogLevel(LOG_LEVELS[level]);
}

/** whisper.cpp version and compiled CPU/GPU features. */
export function whisperSystemInfo(): { version: string; features: string } {
  return { version: binding().version(), features: binding().systemInfo().trim() };
}

/** Whether whisper knows this language code or English name. */
export function isLanguage(code: string): boolean {
  return binding().isLanguage(code);
}

/**
 * The GPU devices this build of the addon drives (ggml's backend device registry, type GPU: a card
 * with its own memory) and their free and total memory now. Empty in a CPU-only build.
 *
 * @example
 * gpuDevices(); // CUDA build: [{ name: "CUDA0", description: "NVIDIA H100 80GB HBM3", freeBytes: 8.1e10, totalBytes: 8.5e10 }]
 */
export function gpuDevices(): GpuDevice[] {
  return binding().gpuDevices();
}

const GIB = 1024 ** 3;

/**
 * The node's free VRAM: free memory in GiB (2^30 bytes) summed over `devices`, rounded down to 0.01;
 * 0 with no GPU. A sum, as the spec's `gpu_free_gb` is the machine's free VRAM, not one card's.
 */
export function freeGpuGb(devices: readonly GpuDevice[]): number {
  const free = devices.reduce((sum, device) => sum + device.freeBytes, 0);
  return Math.floor((free / GIB) * 100) / 100;
}

const newControl = (): NativeDecodeControl => new (binding().DecodeControl)();
/** CPU threads per decode when none are asked for: the cores, at most 4. */
export const defaultThreads = (): number => Math.max(1, Math.min(4, availableParallelism()));

export interface LoadModelOptions {
  /** Default CPU threads per decode (default min(4, cores)). */
  threads?: number;
  /** Use the GPU backend when the addon was built with one (default true; no effect on CPU builds). */
  gpu?: boolean;
  /** Flash attention (whisper.cpp default true). */
  flashAttn?: boolean;
  /**
   * Decodes that run at once (default 1); more `transcribe` calls wait their turn in order. It is
   * also the number of whisper states (KV caches and compute buffers) the model keeps for reuse, so
   * memory stays bounded however many calls arrive. Streams hold their own states besides.
   */
  concurrency?: number;
  /**
   * `adaptive` (default): each decode gets its threads only while that many cores are idle, else
   * one per idle core (at least one) and no polling (thread-policy.ts, thread-decision.ts). `fixed`:
   * always `threads`, polling as ggml does by default: for a node whose cores are its own.
   */
  threadPolicy?: ThreadPolicy;
  /**
   * The pid of the local platform on this machine (wrangler dev, under `npm start`): under `adaptive`,
   * its processes' ticks just before a file decode, serving that request's lease and media, are not
   * read as a neighbour's while the platform is not busy throughout (cpu-meter.ts `recentlyIdle`).
   */
  platformPid?: number;
}

/**
 * Loads a ggml whisper model on a worker thread. Rejects with WhisperError `ERR_MODEL_NOT_FOUND`,
 * `ERR_MODEL_INVALID` (corrupt or truncated file) or `ERR_MODEL_LOAD`.
 *
 * @example
 * const model = await loadModel(await ensureSyntheticModel("micro"), { threads: 2 });
 * console.log(model.info.type, model.info.nAudioLayer);
 */
export async function loadModel(path: string, options: LoadModelOptions = {}): Promise<WhisperModel> {
  if (typeof path !== "string" || path === "") throw new TypeError("model path must be a non-empty string");
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) {
    throw new TypeError("concurrency must be an integer 1..256");
  }
  const flags = { gpu: options.gpu ?? true, flashAttn: options.flashAttn ?? true, concurrency };
  const threadPolicy = options.threadPolicy ?? "adaptive";
  if (threadPolicy !== "adaptive" && threadPolicy !== "fixed") {
    throw new TypeError("threadPolicy must be 'adaptive' or 'fixed'");
  }
  const { platformPid } = options;
  if (platformPid !== undefined && (!Number.isInteger(platformPid) || platformPid < 1)) {
    throw new TypeError("platformPid must be a positive integer");
  }
  if (threadPolicy === "adaptive") {
    if (platformPid !== undefined) setPlatformProcess(platformPid);
    startCpuMeter();
  }
  const native = await binding()
    .loadModel(path, flags)
    .catch((err: unknown) => Promise.reject(toWhisperError(err)));
  return new WhisperModel(path, native, options.threads ?? defaultThreads(), threadDecisions(threadPolicy));
}

/**
 * A loaded model. Up to `concurrency` decodes run at once, each on a whisper_state from the model's
 * pool, made once and reused by later decodes.
 */
export class WhisperModel {
  readonly info: ModelInfo;
  readonly #native: NativeModel;
  readonly #threads: number;
  readonly #decisions: ThreadDecisions;
  readonly #starts = new OrderedStarts();
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #streams = new Set<StreamDecoder>();
  #disposed: Promise<void> | null = null;

  /** @internal use loadModel() */
  constructor(
    readonly path: string,
    native: NativeModel,
    threads: number,
    decisions: ThreadDecisions,
  ) {
    this.#native = native;
    this.#threads = threads;
    this.#decisions = decisions;
    this.info = native.info();
  }

  /**
   * Decodes not finished: running, waiting for their turn (or for their thread decision), or aborted
   * ones that have not reached a check point yet.
   */
  get pending(): number {
    return this.#inflight.size + this.#starts.waiting;
  }

  /**
   * The whisper_state pool: how many states were made, reused, are held now, and the most held at
   * once (never above `concurrency`).
   *
   * @example
   * await model.transcribe(a); await model.transcribe(b);
   * model.stateStats(); // { created: 1, reused: 1, live: 1, idle: 1, peak: 1, capacity: 1 }
   */
  stateStats(): StateStats {
    if (this.#disposed) throw new WhisperError("ERR_MODEL_DISPOSED", "model has been disposed");
    return this.#native.stateStats();
  }

  get disposed(): boolean {
    return this.#disposed !== null;
  }

  /**
   * Transcribes 16 kHz mono float samples on a libuv worker thread. The samples are read in place:
   * do not write to or transfer `pcm` until the promise settles.
   *
   * @example
   * const ac = new AbortController();
   * const t = await model.transcribe(pcm, { language: "auto", temperatureInc: 0, signal: ac.signal });
   * for (const s of t.segments) console.log(s.start, s.end, s.text);
   */
  transcribe(pcm: Float32Array, options: DecodeOptions = {}): Promise<Transcript> {
    if (this.#disposed)
      return Promise.reject(new WhisperError("ERR_MODEL_DISPOSED", "model has been disposed"));
    const requested = options.threads ?? this.#threads;
    return this.#starts.run(
      () => this.#decisions.file(requested),
      (threading) =>
        runDecode(
          newControl,
          (control, progress) =>
            this.#native.transcribe(
              pcm,
              toNativeOptions(options, this.#threads, () => threading),
              control,
              progress,
            ),
          options,
          (p) => this.#track(p),
        ),
    );
  }

  /**
   * Opens a decoder that keeps one whisper_state for repeated low-latency decodes of a rolling
   * buffer: an idle state of the pool when there is one (the stream's dispose gives it back), else a
   * new one. `defaults` apply to every decode (live-friendly: no fallback, no context, one segment).
   *
   * @example
   * const stream = await model.createStream({ language: "en" });
   * const { segments } = await stream.decode(lastFiveSeconds);
   */
  async createStream(defaults: Omit<DecodeOptions, "signal" | "onProgress"> = {}): Promise<StreamDecoder> {
    if (this.#disposed) throw new WhisperError("ERR_MODEL_DISPOSED", "model has been disposed");
    const native = await this.#native
      .createStream()
      .catch((err: unknown) => Promise.reject(toWhisperError(err)));
    if (this.#disposed) {
      native.dispose(); // the model went away while the state was being made
      throw new WhisperError("ERR_MODEL_DISPOSED", "model has been disposed");
    }
    const merged = { temperatureInc: 0, noContext: true, singleSegment: true, ...defaults };
    const stream = new StreamDecoder(native, merged, {
      threads: this.#threads,
      threading: this.#decisions.stream,
      newControl,
      track: (p) => this.#track(p),
      onDispose: (st) => this.#streams.delete(st),
    });
    this.#streams.add(stream);
    return stream;
  }

  /**
   * Rejects new decodes at once and frees the weights after running decodes finish (also disposes
   * streams made from this model). Idempotent; resolves when the memory is released.
   */
  dispose(): Promise<void> {
    if (!this.#disposed) {
      // calls made before this one still start (one may be waiting for its thread decision)
      const release = () => {
        this.#native.dispose();
        for (const stream of this.#streams) void stream.dispose();
        return Promise.allSettled([...this.#inflight]).then(() => undefined);
      };
      this.#disposed = this.#starts.waiting === 0 ? release() : this.#starts.drained().then(release);
    }
    return this.#disposed;
  }

  #track(p: Promise<unknown>): void {
    this.#inflight.add(p);
    const done = () => this.#inflight.delete(p);
    p.then(done, done);
  }
}
