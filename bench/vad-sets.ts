/**
 * The evaluation audio of the `vad` bench, made here from the diarization corpus
 * (test/helpers/diarize-sets.ts: espeak-ng and festival voices, every utterance synthesised on its
 * own, so its extent in the dialogue is known to the sample). Each clean dialogue gives:
 *
 * - `clean`: as synthesised (a -60 dBFS white floor between utterances);
 * - `snr10`, `snr0`: pink noise added at 10 and 0 dB SNR, measured: the noise is scaled so its power
 *   is the speech power (mean square over the reference speech samples) less the SNR;
 * - `music`: a synthetic music bed (test/helpers/music-bed.ts, sox chords) at 10 dB below the
 *   speech power;
 * - `silences`: 30 s of digital silence before the dialogue and 30 s of -60 dBFS white noise after it.
 *
 * Frame truth is on a 10 ms grid: a frame is speech when its centre lies inside a reference turn.
 */
import type { SpeakerTurn } from "../protocol/transcription.ts";
import type { Dialogue } from "../test/helpers/dialogue.ts";
import { pinkNoise, seededRandom } from "../test/helpers/dialogue.ts";

export const RATE = 16_000;
/** Scoring frame: 10 ms. */
export const TRUTH_FRAME = 160;

export type Variant = "clean" | "snr10" | "snr0" | "music" | "silences";
export const VARIANTS: readonly Variant[] = ["clean", "snr10", "snr0", "music", "silences"];

/** Mean square of `pcm` over the reference speech samples. */
export function speechPower(pcm: Float32Array, turns: readonly SpeakerTurn[]): number {
  let sum = 0;
  let count = 0;
  for (const t of turns) {
    for (let s = Math.round(t.start * RATE); s < Math.min(pcm.length, Math.round(t.end * RATE)); s++) {
      sum += pcm[s]! ** 2;
      count++;
    }
  }
  return count > 0 ? sum / count : 0;
}

const meanSquare = (pcm: Float32Array) => pcm.reduce((sum, x) => sum + x * x, 0) / Math.max(1, pcm.length);

/** `bed` (tiled to length) added to the dialogue at `snrDb` below its speech power; the measured SNR too. */
export function mixUnder(
  dialogue: Dialogue,
  bed: Float32Array,
  snrDb: number,
): { pcm: Float32Array; snrDb: number } {
  const target = speechPower(dialogue.pcm, dialogue.turns) / 10 ** (snrDb / 10);
  const gain = Math.sqrt(target / meanSquare(bed));
  const noise = new Float32Array(dialogue.pcm.length);
  for (let s = 0; s < noise.length; s++) noise[s] = bed[s % bed.length]! * gain;
  const pcm = dialogue.pcm.map((x, s) => x + noise[s]!);
  const measured =
    10 * Math.log10(speechPower(dialogue.pcm, dialogue.turns) / speechPower(noise, dialogue.turns));
  return { pcm, snrDb: measured };
}

/** `seconds` of pink noise scaled to `rmsDb` dBFS, deterministic for `seed`. */
export function pinkAt(seconds: number, rmsDb: number, seed: number): Float32Array {
  return scaleTo(pinkNoise(Math.round(seconds * RATE), seededRandom(seed)), rmsDb);
}

/** `seconds` of white noise at `rmsDb` dBFS (a quiet room at -60). */
export function whiteAt(seconds: number, rmsDb: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const pcm = new Float32Array(Math.round(seconds * RATE)).map(() => random() * 2 - 1);
  return scaleTo(pcm, rmsDb);
}

export function scaleTo(pcm: Float32Array, rmsDb: number): Float32Array {
  const gain = 10 ** (rmsDb / 20) / Math.sqrt(meanSquare(pcm));
  return pcm.map((x) => x * gain);
}

export function concat(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The dialogue with `before` and `after` around it; the turns shifted. */
export function padded(dialogue: Dialogue, before: Float32Array, after: Float32Array): Dialogue {
  const shift = before.length / RATE;
  const pcm = concat([before, dialogue.pcm, after]);
  const turns = dialogue.turns.map((t) => ({ ...t, start: t.start + shift, end: t.end + shift }));
  return { pcm, turns, seconds: pcm.length / RATE };
}

/**
 * The dialogue's utterances again, each followed by `pauseSec` of the -60 dBFS floor: every
 * utterance end is then an end of speech the live engine should close with a final.
 */
export function spacedOut(dialogue: Dialogue, pauseSec: number, seed: number): Dialogue {
  const parts: Float32Array[] = [whiteAt(0.5, -60, seed)];
  const turns: SpeakerTurn[] = [];
  let at = parts[0]!.length;
  for (const [i, t] of dialogue.turns.entries()) {
    const clip = dialogue.pcm.slice(Math.round(t.start * RATE), Math.round(t.end * RATE));
    turns.push({ ...t, start: at / RATE, end: (at + clip.length) / RATE });
    const pause = whiteAt(pauseSec, -60, seed + i + 1);
    parts.push(clip, pause);
    at += clip.length + pause.length;
  }
  const pcm = concat(parts);
  return { pcm, turns, seconds: pcm.length / RATE };
}

/** One variant of a clean dialogue, and its measured SNR where noise was added. */
export function variantOf(
  dialogue: Dialogue,
  variant: Variant,
  beds: { music: Float32Array },
  seed: number,
): { dialogue: Dialogue; snrDb: number | null } {
  const mixed = (bed: Float32Array, snr: number) => {
    const { pcm, snrDb } = mixUnder(dialogue, bed, snr);
    return { dialogue: { ...dialogue, pcm }, snrDb };
  };
  switch (variant) {
    case "clean":
      return { dialogue, snrDb: null };
    case "snr10":
      return mixed(pinkAt(dialogue.seconds, -20, seed), 10);
    case "snr0":
      return mixed(pinkAt(dialogue.seconds, -20, seed), 0);
    case "music":
      return mixed(beds.music, 10);
    case "silences":
      return { dialogue: padded(dialogue, new Float32Array(30 * RATE), whiteAt(30, -60, seed)), snrDb: null };
  }
}

/** Speech (true) per 10 ms frame: the frame's centre lies inside a reference turn. */
export function truthFrames(turns: readonly SpeakerTurn[], samples: number): boolean[] {
  const frames = Math.floor(samples / TRUTH_FRAME);
  const truth = new Array<boolean>(frames).fill(false);
  for (const t of turns) {
    const first = Math.max(0, Math.ceil((t.start * RATE) / TRUTH_FRAME - 0.5));
    const last = Math.min(frames - 1, Math.floor((t.end * RATE) / TRUTH_FRAME - 0.5));
    for (let f = first; f <= last; f++) truth[f] = true;
  }
  return truth;
}

/** Frame scores: accuracy over all 10 ms frames, and over those further than `collarSec` from a turn edge. */
export interface FrameScore {
  frames: number;
  correct: number;
  collaredFrames: number;
  collaredCorrect: number;
  /** Speech frames called non-speech, non-speech frames called speech. */
  missed: number;
  falseAlarm: number;
}

/**
 * Scores a VAD's flags (one per `frameSamples` frame) on the 10 ms grid: each 10 ms frame takes the
 * decision of the VAD frame holding its centre (a frame past the VAD's last whole frame: non-speech).
 */
export function scoreFrames(
  flags: readonly boolean[],
  frameSamples: number,
  turns: readonly SpeakerTurn[],
  samples: number,
  collarSec = 0.1,
): FrameScore {
  const truth = truthFrames(turns, samples);
  const edges = turns.flatMap((t) => [t.start, t.end]).sort((a, b) => a - b);
  const score: FrameScore = {
    frames: 0,
    correct: 0,
    collaredFrames: 0,
    collaredCorrect: 0,
    missed: 0,
    falseAlarm: 0,
  };
  let edge = 0;
  for (const [f, speech] of truth.entries()) {
    const centre = (f + 0.5) * TRUTH_FRAME;
    const said = flags[Math.floor(centre / frameSamples)] ?? false;
    const right = said === speech;
    score.frames++;
    if (right) score.correct++;
    else if (speech) score.missed++;
    else score.falseAlarm++;
    const t = centre / RATE;
    while (edge < edges.length - 1 && edges[edge + 1]! <= t) edge++;
    const near = Math.min(Math.abs(t - (edges[edge] ?? -1e9)), Math.abs(t - (edges[edge + 1] ?? 1e9)));
    if (near > collarSec) {
      score.collaredFrames++;
      if (right) score.collaredCorrect++;
    }
  }
  return score;
}
