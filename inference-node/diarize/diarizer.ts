/**
 * Streaming speaker diarization without a learned speaker model. While audio streams in: MFCCs, pitch
 * and a voicing decision (the Silero VAD's labels, or the energy VAD) per 10 ms frame, reduced to voiced-frame statistics per 0.25 s block. At `finish()`:
 * per-recording CMVN, ΔBIC speaker-change detection inside speech intervals, 1.5 s window embeddings
 * (cepstral means and spreads, mean log pitch) that never cross a change, two-stage clustering
 * (average-linkage cosine proposals, then merging until every pair left is both well separated and
 * significantly different on its blocks), Gaussian Viterbi resegmentation at block resolution, turns.
 * The significance test is what lets a 10 s exchange of 2-3 s turns keep two speakers while a 30 s
 * monologue stays one: it weighs the difference against the amount of speech behind it.
 *
 * Memory: the only state that grows with the audio is the block statistics, (2 * 19 + 4) float32 per
 * 0.25 s block = 40,320 bytes per audio minute (allocated in pages of 256 blocks), plus 16 bytes per
 * speech interval (8 in the VAD's log, 8 in the noise meter's, noise-estimate.ts; about 230 bytes
 * per minute on the synthetic dialogues): 2.4 MB per audio hour.
 * `finish()` briefly holds float64 copies of the statistics (about 4x the stored size, ~9 MB for an
 * hour) and a `maxItems`^2 float64 distance matrix (2.9 MB at the default 600); when the request
 * names speakers, also the raw statistics and every window's raw profile (reference-anchors.ts).
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import { BLOCK_FRAMES, type BlockStats, BlockStore, blockStride, windowEmbeddings } from "./blocks.ts";
import { clusterWindows } from "./cluster.ts";
import { blockOwners, type Evidence, windowEvidence } from "./evidence.ts";
import { CEPSTRAL_DIMS, FRAME_HOP, MfccExtractor, SAMPLE_RATE } from "./features.ts";
import { NoiseMeter } from "./noise-estimate.ts";
import { PitchTracker } from "./pitch.ts";
import { anchoredApart, strayRuns } from "./reference-anchors.ts";
import { buildTurns, resegment } from "./reseg.ts";
import { changeSegments } from "./segment.ts";
import { EnergyVad, type FrameVoicing, type VadOptions } from "./vad.ts";
import { blockProfiles, type CallProfiles, speakerProfiles } from "./voice-profile.ts";
import type { VoiceReference } from "./voice-reference.ts";

const DIMS = CEPSTRAL_DIMS;
/** Bytes of block statistics per audio minute: 240 blocks of (2 * DIMS + 4) float32. */
export const BYTES_PER_AUDIO_MINUTE = ((60 * SAMPLE_RATE) / FRAME_HOP / BLOCK_FRAMES) * blockStride(DIMS) * 4;

/** Options of {@link Diarizer}. */
export interface DiarizerOptions {
  /** Exact number of speakers when known (overrides min/max). */
  numSpeakers?: number;
  /** Lower bound on the number of speakers. Default 1. */
  minSpeakers?: number;
  /** Upper bound on the number of speakers. Default 8. */
  maxSpeakers?: number;
  /**
   * Mean per-dimension Fisher ratio (less what one speaker scores by chance at the clusters' sizes)
   * below which two clusters are one speaker; lower finds more. Default 1.3.
   */
  separation?: number;
  /**
   * Windows clustered agglomeratively at most; beyond that an evenly spaced subsample is clustered
   * and the rest join the nearest cluster. Default 600 (5 minutes of speech).
   */
  maxItems?: number;
  /** Same-speaker turns separated by at most this many seconds are joined. Default 0.5. */
  mergeGap?: number;
  /** Energy VAD tuning. */
  vad?: VadOptions;
  /** Where speech is, from a learned VAD (labelled-voicing.ts); the energy VAD when absent. */
  voicing?: FrameVoicing;
  /**
   * Known voices the request names: a cluster one of them matches is not merged with a cluster far
   * from it, nor given by resegmentation another cluster's run it would not name
   * (reference-anchors.ts). The clustering and resegmentation are unchanged without them.
   */
  references?: readonly VoiceReference[];
}

/** The named speakers' references as profiles under the call's noise, and the call's raw block statistics. */
interface KnownVoices {
  raw: BlockStats;
  references: Evidence[];
}

const WINDOW_BLOCKS = 6; // 1.5 s
const HOP_BLOCKS = 2; // 0.5 s
const MIN_WINDOW_VOICED = 75; // frames: a window less than half voiced gives a noisy, outlying embedding
const SWITCH_PENALTY = 100; // log-likelihood units; DER is flat between 60 and 150 on the synthetic set
const BIC_LAMBDA = 2;
const RESEG_ITERATIONS = 2;
const PROPOSAL_THRESHOLD = 0.9; // stage-1 cosine cut; results are unchanged from 0.8 to 1.0
// Block t^2 (mean per feature) below which two clusters merge. One speaker's halves would score
// about 1 if blocks were independent; neighbouring blocks share words and the split was chosen by
// clustering, so on the synthetic sets one voice reaches 3.2 and most pairs of voices score 3.5 and
// up (some same-gender pairs less). Count accuracy is flat from 3.4 to 4.0; below 3.1 monologues split.
const SIGNIFICANCE = 3.5;
const MIN_BLOCK_FRAMES = 10; // blocks less voiced than this give too noisy a spread to test with
const MIN_BLOCK_PITCHED = 5; // frames with a pitch a block needs for its mean log pitch to count

/**
 * Speaker diarization over a stream of 16 kHz mono Float32 PCM chunks of any length. `push` keeps
 * only compact block statistics, so it can run beside recognition on audio of unbounded length;
 * `finish` clusters once and returns the turns (it may be called again and returns the same turns).
 *
 * @example
 * const diarizer = new Diarizer({ maxSpeakers: 4 });
 * for await (const chunk of pcmChunks) diarizer.push(chunk);
 * const turns = diarizer.finish(); // [{ start: 0.4, end: 3.1, speaker: "SPEAKER_00" }, ...]
 */
export class Diarizer {
  private readonly options: DiarizerOptions;
  private readonly mfcc = new MfccExtractor(DIMS);
  private readonly pitch = new PitchTracker();
  private readonly vad: FrameVoicing;
  private readonly store = new BlockStore(DIMS);
  private readonly noise = new NoiseMeter();
  private readonly sums = new Float64Array(DIMS);
  private readonly sumsq = new Float64Array(DIMS);
  /** Pitched frames of the current block, and the sum and sum of squares of their log F0. */
  private readonly pitchMoments = [0, 0, 0];
  private voiced = 0;
  private frames = 0;
  private result: SpeakerTurn[] | null = null;

  constructor(options: DiarizerOptions = {}) {
    this.options = options;
    this.vad = options.voicing ?? new EnergyVad(options.vad);
  }

  /** Feeds the next chunk of 16 kHz mono samples in [-1, 1]. */
  push(pcm: Float32Array): void {
    if (this.result) throw new Error("Diarizer: push after finish");
    this.pitch.feed(pcm);
    this.mfcc.push(pcm, (ceps, energyDb, logMel) => {
      this.noise.frame(logMel, energyDb);
      if (this.vad.update(energyDb)) {
        this.voiced++;
        const logF0 = this.pitch.logF0(this.frames);
        if (!Number.isNaN(logF0)) {
          const m = this.pitchMoments;
          m[0] = (m[0] ?? 0) + 1;
          m[1] = (m[1] ?? 0) + logF0;
          m[2] = (m[2] ?? 0) + logF0 * logF0;
        }
        for (let d = 0; d < DIMS; d++) {
          const c = ceps[d] ?? 0;
          this.sums[d] = (this.sums[d] ?? 0) + c;
          this.sumsq[d] = (this.sumsq[d] ?? 0) + c * c;
        }
      }
      if (++this.frames % BLOCK_FRAMES === 0) this.flushBlock();
    });
  }

  /** Bytes of retained features: block statistics, speech intervals and the noise estimate. */
  get featureBytes(): number {
    return this.store.bytes + this.vad.bytes + this.noise.bytes;
  }

  /** Clusters everything pushed so far and returns the speaker turns in time order. */
  finish(): SpeakerTurn[] {
    if (this.result) return this.result;
    if (this.frames % BLOCK_FRAMES !== 0) this.flushBlock();
    this.result = this.diarize();
    return this.result;
  }

  /**
   * The voice profile of each speaker of `finish()`'s turns, from the raw block statistics, and the
   * recording's background noise (voice-profile.ts), to name them after known speakers.
   */
  speakerProfiles(): CallProfiles {
    const turns = this.finish();
    const stats = this.store.raw();
    const speakers = stats
      ? speakerProfiles(stats, turns, (BLOCK_FRAMES * FRAME_HOP) / SAMPLE_RATE)
      : new Map();
    return { speakers, noise: this.noise.estimate() };
  }

  private flushBlock(): void {
    this.store.append(this.voiced, this.sums, this.sumsq, this.pitchMoments);
    this.voiced = 0;
    this.sums.fill(0);
    this.sumsq.fill(0);
    this.pitchMoments.fill(0);
  }

  /** The named speakers' references profiled under the call's noise, and the raw statistics; null without them. */
  private knownVoices(): KnownVoices | null {
    const references = this.options.references ?? [];
    const raw = references.length > 0 ? this.store.raw() : null;
    if (!raw) return null;
    const noise = this.noise.estimate();
    return { raw, references: references.map((reference) => reference.profileIn(noise)) };
  }

  private diarize(): SpeakerTurn[] {
    const stats = this.store.normalized();
    const intervals = this.vad.intervals();
    if (!stats || intervals.length === 0) return [];
    // Speech intervals in blocks; a block shared by two intervals goes to the earlier one.
    const spans: [number, number][] = [];
    for (const [start, end] of intervals) {
      const first = Math.max(Math.floor(start / BLOCK_FRAMES), spans.at(-1)?.[1] ?? 0);
      const last = Math.min(stats.counts.length, Math.ceil(end / BLOCK_FRAMES));
      if (last > first) spans.push([first, last]);
    }
    const segments = changeSegments(stats, spans, {
      window: WINDOW_BLOCKS,
      lambda: BIC_LAMBDA,
      minVoiced: MIN_WINDOW_VOICED / 2,
    });
    const windows = windowEmbeddings(stats, segments, WINDOW_BLOCKS, HOP_BLOCKS, MIN_WINDOW_VOICED);
    if (windows.length === 0) return [];
    const { numSpeakers, mergeGap = 0.5 } = this.options;
    const owners = blockOwners(stats, windows);
    const known = this.knownVoices();
    const labels = clusterWindows(standardize(windows.map((w) => w.embedding)), {
      threshold: PROPOSAL_THRESHOLD,
      separation: this.options.separation ?? 1.3,
      significance: SIGNIFICANCE,
      overlap: WINDOW_BLOCKS / HOP_BLOCKS,
      evidence: windowEvidence(stats, owners, windows.length, MIN_BLOCK_FRAMES, MIN_BLOCK_PITCHED),
      minClusters: numSpeakers ?? this.options.minSpeakers ?? 1,
      maxClusters: numSpeakers ?? this.options.maxSpeakers ?? 8,
      maxItems: this.options.maxItems ?? 600,
      ...(known && {
        keepApart: {
          evidence: blockProfiles(known.raw, owners, windows.length),
          rule: anchoredApart(known.references),
        },
      }),
    });
    // A block starts with the label of the window that owns it; blocks no window covers stay
    // unlabelled (-1) until resegmentation assigns them.
    const blockLabels = Int32Array.from(owners, (owner) => (owner < 0 ? -1 : (labels[owner] ?? 0)));
    const speakers = labels.reduce((most, label) => Math.max(most, label + 1), 0);
    const reseg = { switchPenalty: SWITCH_PENALTY, iterations: RESEG_ITERATIONS };
    let refined = resegment(stats, blockLabels, speakers, reseg);
    // A known voice's cluster takes from other clusters only runs its reference would name.
    const barred = known && strayRuns(known.raw, blockLabels, refined, speakers, known.references);
    if (barred && barred.size > 0) {
      const bar = (block: number, speaker: number) => barred.has(block * speakers + speaker);
      refined = resegment(stats, blockLabels, speakers, { ...reseg, barred: bar });
    }
    return buildTurns(intervals, refined, BLOCK_FRAMES, FRAME_HOP / SAMPLE_RATE, mergeGap);
  }
}

/**
 * Z-scores every embedding dimension across the recording's windows, so cosine distance compares
 * deviations from the recording's average voice rather than the shared offset of all windows.
 */
function standardize(points: Float64Array[]): Float64Array[] {
  const dims = points[0]?.length ?? 0;
  const mean = new Float64Array(dims);
  const sq = new Float64Array(dims);
  for (const p of points) {
    for (let d = 0; d < dims; d++) {
      mean[d] = (mean[d] ?? 0) + (p[d] ?? 0) / points.length;
      sq[d] = (sq[d] ?? 0) + ((p[d] ?? 0) * (p[d] ?? 0)) / points.length;
    }
  }
  return points.map((p) =>
    p.map(
      (x, d) =>
        (x - (mean[d] ?? 0)) / Math.sqrt(Math.max((sq[d] ?? 0) - (mean[d] ?? 0) * (mean[d] ?? 0), 1e-8)),
    ),
  );
}
