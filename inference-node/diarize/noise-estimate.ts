/**
 * A recording's background noise as a known-speaker match needs it: the mean mel-band power of the
 * frames the energy VAD finds quiet, and the mean power of the loud ones, which sets the level the
 * noise sits at relative to the speech. The energy VAD decides even where the diarizer's speech
 * regions come from the Silero VAD: a loud frame the learned VAD leaves out of speech (a word's onset
 * before its label turns) is speech, and counting it as noise put a voice in the noise (the clean
 * speakers e2e call's agent moved from 0.31 to 0.44). A clean reference clip's profile is taken under this noise
 * (voice-reference.ts) before it is compared with the recording's speakers, so both sides carry the
 * same noise: additive noise fills the spectrum's valleys and moves the cepstral means of a voice
 * far more than the voices differ from each other.
 */
import { MEL_BANDS } from "./features.ts";
import { EnergyVad } from "./vad.ts";

/** Mean mel-band power of a recording's unvoiced frames and mean power of its voiced frames (linear). */
export interface NoiseEstimate {
  melPower: Float64Array;
  speechPower: number;
}

/**
 * Accumulates a {@link NoiseEstimate} frame by frame: 43 numbers whatever the recording's length,
 * and its energy VAD's speech intervals (8 bytes each).
 *
 * @example
 * const meter = new NoiseMeter();
 * meter.frame(logMel, energyDb); // every 10 ms frame
 * meter.estimate(); // null until it has seen both a loud and a quiet frame
 */
export class NoiseMeter {
  private readonly vad = new EnergyVad();
  private readonly melPower = new Float64Array(MEL_BANDS);
  private unvoiced = 0;
  private voiced = 0;
  private speechPower = 0;

  /** One frame: its log mel energies and its energy in dBFS. */
  frame(logMel: Float64Array, energyDb: number): void {
    if (this.vad.update(energyDb)) {
      this.voiced++;
      this.speechPower += 10 ** (energyDb / 10);
      return;
    }
    this.unvoiced++;
    for (let m = 0; m < MEL_BANDS; m++) this.melPower[m] = (this.melPower[m] ?? 0) + Math.exp(logMel[m] ?? 0);
  }

  /** Bytes held: the sums, and the energy VAD's speech intervals. */
  get bytes(): number {
    return (MEL_BANDS + 3) * 8 + this.vad.bytes;
  }

  /** Mean power of the loud frames so far (0 when none). */
  get meanSpeechPower(): number {
    return this.voiced > 0 ? this.speechPower / this.voiced : 0;
  }

  estimate(): NoiseEstimate | null {
    if (this.voiced === 0 || this.unvoiced === 0) return null;
    return {
      melPower: this.melPower.map((power) => power / this.unvoiced),
      speechPower: this.meanSpeechPower,
    };
  }
}
