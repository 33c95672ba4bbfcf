/** StreamDecoder: repeated low-latency decodes on one kept whisper_state. */
import type { NativeDecodeControl, NativeStream } from "./addon-types.ts";
import { runDecode } from "./run-decode.ts";
import type { Threading } from "./thread-policy.ts";
import { type DecodeOptions, type Transcript, toNativeOptions, WhisperError } from "./transcript.ts";

/** What a stream needs from the model that made it. */
export interface StreamContext {
  threads: number;
  threading: (requested: number) => Threading;
  newControl: () => NativeDecodeControl;
  /** Sees every native decode promise (the model waits for them on dispose). */
  track: (p: Promise<unknown>) => void;
  onDispose: (stream: StreamDecoder) => void;
}

/** A reusable decoding state (see WhisperModel.createStream). One decode at a time. */
export class StreamDecoder {
  readonly #native: NativeStream;
  readonly #defaults: DecodeOptions;
  readonly #ctx: StreamContext;
  #last: Promise<unknown> = Promise.resolve();
  #disposed = false;

  /** @internal use WhisperModel.createStream() */
  constructor(native: NativeStream, defaults: DecodeOptions, ctx: StreamContext) {
    this.#native = native;
    this.#defaults = defaults;
    this.#ctx = ctx;
  }

  /** True while a decode runs; decode() then rejects with ERR_STREAM_BUSY (skip this tick). */
  get busy(): boolean {
    return this.#native.busy;
  }

  /**
   * Decodes `pcm` (16 kHz mono) on the kept state; per-call options override the stream's defaults.
   *
   * @example
   * const { segments } = await stream.decode(lastFiveSeconds, { signal });
   */
  decode(pcm: Float32Array, options: DecodeOptions = {}): Promise<Transcript> {
    if (this.#disposed) {
      return Promise.reject(new WhisperError("ERR_STREAM_DISPOSED", "stream has been disposed"));
    }
    const opts = { ...this.#defaults, ...options };
    return runDecode(
      this.#ctx.newControl,
      (control, progress) =>
        this.#native.decode(
          pcm,
          toNativeOptions(opts, this.#ctx.threads, this.#ctx.threading),
          control,
          progress,
        ),
      opts,
      (p) => {
        this.#ctx.track(p);
        this.#last = p.catch(() => undefined);
      },
    );
  }

  /**
   * Resolves once no decode runs on this state: an aborted decode rejects at once but keeps its
   * threads busy until the native side reaches its next check point.
   */
  idle(): Promise<void> {
    return this.#last.then(() => undefined);
  }

  /** Frees the state once a running decode finishes. Idempotent. */
  async dispose(): Promise<void> {
    if (!this.#disposed) {
      this.#disposed = true;
      this.#native.dispose();
      this.#ctx.onDispose(this);
    }
    await this.#last;
  }
}
