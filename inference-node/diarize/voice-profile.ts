/**
 * Known speakers: a voice profile is the block evidence of evidence.ts (per 0.25 s block, the mean
 * and spread of the voiced frames' cepstra and their mean log pitch) taken over the raw, unnormalized
 * statistics of a set of blocks, so a reference clip and a recording's cluster are measured on one
 * scale. Two profiles are compared by their mean per-feature Fisher ratio (squared difference of the
 * block means over the pooled block-to-block variance): unlike a t^2 it does not grow with the amount
 * of speech, so one threshold serves a 3 s reference and a 10 minute cluster alike. The cepstral
 * spreads are left out of the comparison: background noise fills the spectrum's valleys and narrows
 * them far more than it moves the means, so a clean reference stopped matching its own voice in a
 * call at 10 dB SNR (bench/speakers.ts: 0% named with them, 93% without).
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import type { BlockStats } from "./blocks.ts";
import { type Evidence, mergeEvidence, windowEvidence } from "./evidence.ts";

/** Voiced frames a block needs for its cepstral features to count (as in the diarizer's evidence). */
const MIN_BLOCK_VOICED = 10;
/** Pitched frames a block needs for its mean log pitch to count. */
const MIN_BLOCK_PITCHED = 5;

/**
 * Profile distance at or under which a cluster takes a known speaker's name. Tuned on the speakers
 * bench's tuning cases (bench/speakers.ts), not on the cases it reports: there a voice's own cluster
 * scored 0.09-0.29 clean and 0.30-0.85 at 10 dB SNR, other voices' clusters 0.37 and up clean and
 * 0.73 and up in noise; best-first naming keeps the overlap from costing a present voice its name.
 * On those cases 0.8 named 56% of the noisy speech right (6% false), 0.9 and 1.0 96% (12% false,
 * 8 points of which the diarizer's own merges give at any threshold): 0.9 is the lower of the two.
 */
export const KNOWN_SPEAKER_THRESHOLD = 0.9;

/** A reference voice: the name to give and its profile. */
export interface KnownVoice {
  name: string;
  profile: Evidence;
}

/**
 * The profile of every block whose owner is not negative, summed per owner.
 *
 * @example
 * const [profile] = blockProfiles(stats, Int32Array.from(stats.counts, () => 0), 1); // the whole clip
 */
export function blockProfiles(stats: BlockStats, owners: Int32Array, count: number): Evidence[] {
  return windowEvidence(stats, owners, count, MIN_BLOCK_VOICED, MIN_BLOCK_PITCHED);
}

/**
 * Per speaker label of `turns`, the profile of the blocks whose centre lies in one of its turns.
 *
 * @example
 * speakerProfiles(stats, turns, 0.25).get("SPEAKER_00") // Evidence of speaker 00's blocks
 */
export function speakerProfiles(
  stats: BlockStats,
  turns: readonly SpeakerTurn[],
  blockSeconds: number,
): Map<string, Evidence> {
  const labels = [...new Set(turns.map((turn) => turn.speaker))];
  const owners = new Int32Array(stats.counts.length).fill(-1);
  for (const turn of turns) {
    const first = Math.max(0, Math.round(turn.start / blockSeconds));
    const last = Math.min(owners.length, Math.round(turn.end / blockSeconds));
    for (let b = first; b < last; b++) owners[b] = labels.indexOf(turn.speaker);
  }
  const profiles = blockProfiles(stats, owners, labels.length);
  return new Map(labels.map((label, i) => [label, profiles[i] ?? mergeEvidence(undefined, undefined)]));
}

/**
 * Mean over features of the Fisher ratio of two profiles' blocks: about 0 for two samples of one
 * voice, larger the more the voices differ; features with fewer than two blocks on a side are left
 * out, and Infinity when none is left (nothing to compare).
 *
 * @example
 * profileDistance(reference, cluster) // e.g. 0.3 for the same voice, 2 for another
 */
export function profileDistance(a: Evidence, b: Evidence): number {
  let total = 0;
  let features = 0;
  // features are dims cepstral means, dims spreads, then the log pitch (evidence.ts)
  const dims = (a.n.length - 1) / 2;
  for (let f = 0; f < a.n.length; f++) {
    if (f >= dims && f < 2 * dims) continue;
    const [na, nb] = [a.n[f] ?? 0, b.n[f] ?? 0];
    if (na < 2 || nb < 2) continue;
    const [ma, mb] = [(a.sum[f] ?? 0) / na, (b.sum[f] ?? 0) / nb];
    const pooled = ((a.sq[f] ?? 0) - na * ma * ma + (b.sq[f] ?? 0) - nb * mb * mb) / (na + nb - 2);
    total += (ma - mb) ** 2 / Math.max(pooled, 1e-9);
    features++;
  }
  return features > 0 ? total / features : Number.POSITIVE_INFINITY;
}

/**
 * Names clusters after known voices, best match first: the closest (cluster, voice) pair within
 * `threshold` is named, both leave, and so on. A cluster gets at most one name and a name at most
 * one cluster; a cluster no voice is close enough to keeps its label.
 *
 * @example
 * nameSpeakers(speakerProfiles(stats, turns, 0.25), [{ name: "agent", profile }], 1.0) // Map { "SPEAKER_01" => "agent" }
 */
export function nameSpeakers(
  clusters: ReadonlyMap<string, Evidence>,
  voices: readonly KnownVoice[],
  threshold: number,
): Map<string, string> {
  const pairs: { label: string; name: string; distance: number }[] = [];
  for (const [label, profile] of clusters) {
    for (const voice of voices) {
      const distance = profileDistance(profile, voice.profile);
      if (distance <= threshold) pairs.push({ label, name: voice.name, distance });
    }
  }
  pairs.sort((a, b) => a.distance - b.distance);
  const named = new Map<string, string>();
  const taken = new Set<string>();
  for (const { label, name } of pairs) {
    if (named.has(label) || taken.has(name)) continue;
    named.set(label, name);
    taken.add(name);
  }
  return named;
}
