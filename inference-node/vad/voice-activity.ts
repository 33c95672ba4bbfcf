/**
 * Where speech is, decided frame by frame: one interface for the learned Silero model and the energy
 * detector it falls back to. A `VoiceActivity` is shared by the whole node (Silero: one ONNX session);
 * every audio stream gets its own `VoiceActivityStream`, which holds that stream's state (Silero's
 * recurrent state, the energy detector's noise tracking) and must be fed its frames in order.
 */
import type { VadKind } from "../config.ts";
import { EnergyVad, type VadOptions } from "../diarize/vad.ts";
import { SILERO_MODEL_PATH, SileroVad } from "./silero.ts";

export interface VoiceActivityStream {
  /** Samples (16 kHz) per decision: 512 for Silero, 160 for the energy detector. */
  readonly frameSamples: number;
  /** Whether the next frame (exactly `frameSamples` samples) is speech; call one frame at a time, in order. */
  isSpeech(frame: Float32Array): Promise<boolean>;
}

export interface VoiceActivity {
  readonly kind: VadKind;
  /**
   * A detector for one audio stream; `speechThreshold` (0..1) is the speech probability a learned
   * detector opens speech at (Silero's default 0.5); the energy detector has no such scale.
   */
  stream(options?: { speechThreshold?: number }): VoiceActivityStream;
}

const ENERGY_FRAME = 160; // 10 ms
const MIN_DB = -120; // digital silence would be -Infinity dBFS

/** The energy detector ({@link EnergyVad}) on 10 ms frames: no model, but any steady noise can open speech. */
export class EnergyVoiceActivity implements VoiceActivity {
  readonly kind = "energy";
  constructor(private readonly options: VadOptions = {}) {}

  stream(): VoiceActivityStream {
    const vad = new EnergyVad(this.options);
    return {
      frameSamples: ENERGY_FRAME,
      isSpeech: async (frame) => vad.update(energyDb(frame)),
    };
  }
}

/**
 * The detector `VOXEDGE_VAD` asks for. Silero falls back to the energy detector when its model cannot
 * be loaded (a missing package, an unsupported CPU): the node keeps working, `warn` says why once.
 */
export async function loadVoiceActivity(
  kind: VadKind,
  warn: (message: string) => void,
  modelPath = SILERO_MODEL_PATH,
): Promise<VoiceActivity> {
  if (kind === "energy") return new EnergyVoiceActivity();
  try {
    return await SileroVad.load(modelPath);
  } catch (error) {
    warn(
      `Silero VAD unavailable, using the energy VAD: ${error instanceof Error ? error.message : String(error)}`,
    );
    return new EnergyVoiceActivity();
  }
}

/** Every whole frame of `pcm` through a fresh stream of `vad`: one speech flag per frame. */
export async function speechFrames(vad: VoiceActivity, pcm: Float32Array): Promise<boolean[]> {
  const stream = vad.stream();
  const n = stream.frameSamples;
  const flags: boolean[] = [];
  for (let at = 0; at + n <= pcm.length; at += n) flags.push(await stream.isSpeech(pcm.subarray(at, at + n)));
  return flags;
}

/** Energy of a frame in dBFS. */
export function energyDb(frame: Float32Array): number {
  let sum = 0;
  for (const x of frame) sum += x * x;
  return Math.max(MIN_DB, 10 * Math.log10(sum / frame.length));
}
