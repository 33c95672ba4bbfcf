/**
 * A known speaker's reference clip, kept as the log mel energies and log pitch of its voiced frames
 * rather than as a finished profile, so that its profile can be taken as the clip would sound under
 * a recording's background noise (noise-estimate.ts): each frame's mel power gets the recording's
 * noise power added at the recording's noise-to-speech ratio before the cepstra are taken again.
 * Without that, a clean reference stops matching its own voice in a noisy call (bench/speakers.ts:
 * at 10 dB SNR a voice's own cluster scored up to 1.26, other voices' from 0.95). Memory: 168 bytes
 * per voiced 10 ms frame, 0.5 MB for a 30 s enrolled clip (twice that while it is read).
 */
import { BLOCK_FRAMES, type BlockStats } from "./blocks.ts";
import { type Evidence, mergeEvidence } from "./evidence.ts";
import { CEPSTRAL_DIMS, dct, MEL_BANDS, MfccExtractor } from "./features.ts";
import { type NoiseEstimate, NoiseMeter } from "./noise-estimate.ts";
import { PitchTracker } from "./pitch.ts";
import { EnergyVad } from "./vad.ts";
import { blockProfiles } from "./voice-profile.ts";

/** A reference voice whose profile can be taken under a recording's noise. */
export interface VoiceReference {
  /** The clip's profile (voice-profile.ts), as heard under `noise`; as recorded when null. */
  profileIn(noise: NoiseEstimate | null): Evidence;
}

/** The voiced frames of a reference clip: log mel energies, block index and log F0 (NaN if unpitched). */
class ClipReference implements VoiceReference {
  constructor(
    private readonly logMel: Float32Array,
    private readonly blocks: Int32Array,
    private readonly logF0: Float32Array,
    private readonly speechPower: number,
  ) {}

  profileIn(noise: NoiseEstimate | null): Evidence {
    const dims = CEPSTRAL_DIMS;
    const count = (this.blocks.at(-1) ?? 0) + 1;
    const stats: BlockStats = {
      dims,
      counts: new Float64Array(count),
      sums: new Float64Array(count * dims),
      sumsq: new Float64Array(count * dims),
      pitch: {
        counts: new Float64Array(count),
        sums: new Float64Array(count),
        sumsq: new Float64Array(count),
      },
    };
    const scale = noise ? this.speechPower / Math.max(noise.speechPower, 1e-20) : 0;
    const mel = new Float64Array(MEL_BANDS);
    const cepstra = new Float64Array(dims + 1);
    for (const [frame, block] of this.blocks.entries()) {
      for (let m = 0; m < MEL_BANDS; m++) {
        const logMel = this.logMel[frame * MEL_BANDS + m] ?? 0;
        mel[m] = noise ? Math.log(Math.exp(logMel) + scale * (noise.melPower[m] ?? 0)) : logMel;
      }
      dct(mel, cepstra); // c0 first, dropped as the diarizer drops it
      stats.counts[block] = (stats.counts[block] ?? 0) + 1;
      for (let d = 0; d < dims; d++) {
        const c = cepstra[d + 1] ?? 0;
        stats.sums[block * dims + d] = (stats.sums[block * dims + d] ?? 0) + c;
        stats.sumsq[block * dims + d] = (stats.sumsq[block * dims + d] ?? 0) + c * c;
      }
      const logF0 = this.logF0[frame] ?? Number.NaN;
      if (Number.isNaN(logF0)) continue;
      stats.pitch.counts[block] = (stats.pitch.counts[block] ?? 0) + 1;
      stats.pitch.sums[block] = (stats.pitch.sums[block] ?? 0) + logF0;
      stats.pitch.sumsq[block] = (stats.pitch.sumsq[block] ?? 0) + logF0 * logF0;
    }
    return blockProfiles(stats, new Int32Array(count), 1)[0] ?? mergeEvidence(undefined, undefined);
  }
}

/**
 * Reads a reference clip (16 kHz mono PCM chunks) with the diarizer's own front end: MFCC frames,
 * pitch and the energy VAD.
 *
 * @example
 * const recorder = new ReferenceRecorder();
 * for await (const chunk of pcmChunks) recorder.push(chunk);
 * const reference = recorder.finish(); // null when nothing was voiced
 */
export class ReferenceRecorder {
  private readonly mfcc = new MfccExtractor(CEPSTRAL_DIMS);
  private readonly pitch = new PitchTracker();
  private readonly vad = new EnergyVad();
  private readonly meter = new NoiseMeter();
  private readonly logMel: number[] = [];
  private readonly blocks: number[] = [];
  private readonly logF0: number[] = [];
  private frames = 0;

  push(pcm: Float32Array): void {
    this.pitch.feed(pcm);
    this.mfcc.push(pcm, (_cepstra, energyDb, logMel) => {
      this.meter.frame(logMel, energyDb);
      if (this.vad.update(energyDb)) {
        this.logMel.push(...logMel);
        this.blocks.push(Math.floor(this.frames / BLOCK_FRAMES));
        this.logF0.push(this.pitch.logF0(this.frames));
      }
      this.frames++;
    });
  }

  finish(): VoiceReference | null {
    if (this.blocks.length === 0) return null;
    return new ClipReference(
      Float32Array.from(this.logMel),
      Int32Array.from(this.blocks),
      Float32Array.from(this.logF0),
      this.meter.meanSpeechPower,
    );
  }
}
