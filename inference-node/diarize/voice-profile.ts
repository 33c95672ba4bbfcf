/**
 * Known speakers: a voice profile is the block evidence of evidence.ts (per 0.25 s block, the mean
 * and spread of the voiced frames' cepstra and their mean log pitch) taken over the raw, unnormalized
 * statistics of a set of blocks, so a reference clip and a recording's cluster are measured on one
 * scale. Two profiles are compared by their mean per-feature Fisher ratio (squared difference of the
 * block means over the pooled block-to-block variance): unlike a t^2 it does not grow with the amount
 * of speech, so one threshold serves a 3 s reference and a 10 minute cluster alike. The cepstral
 * spreads are left out of the comparison: background noise fills the spectrum's valleys and narrows
 * them far more than it moves the means, so a clean reference stopped matching its own voice in a
 * call at 10 dB SNR (bench/speakers.ts: 0% named with them, 93% without). The means move too, so
 * a reference is profiled under the recording's own noise before the comparison (voice-reference.ts).
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import type { BlockStats } from "./blocks.ts";
import { type Evidence, mergeEvidence, windowEvidence } from "./evidence.ts";
import type { NoiseEstimate } from "./noise-estimate.ts";
import type { VoiceReference } from "./voice-reference.ts";

/** Voiced frames a block needs for its cepstral features to count (as in the diarizer's evidence). */
const MIN_BLOCK_VOICED = 10;
/** Pitched frames a block needs for its mean log pitch to count. */
const MIN_BLOCK_PITCHED = 5;

/**
 * Profile distance at or under which a cluster takes a known speaker's name. Tuned on the speakers
 * bench's tuning cases (bench/speakers.ts), not on the cases it reports: with the reference profiled
 * under the call's noise, a voice's own cluster scored 0.06-0.16 clean and up to 0.28 at 10 dB SNR,
 * other voices' clusters 0.38 and up; the named shares are the same from 0.3 to 1.2 (best-first
 * naming keeps the overlap from costing a present voice its name). 0.4 leaves half as much again
 * over the largest own-voice distance, and names fewer clusters for a voice that is absent.
 */
export const KNOWN_SPEAKER_THRESHOLD = 0.4;

/** A reference voice: the name to give and its reference clip. */
export interface KnownVoice {
  name: string;
  reference: VoiceReference;
}

/** A recording's speakers' profiles (by label) and its background noise: what known voices match against. */
export interface CallProfiles {
  speakers: ReadonlyMap<string, Evidence>;
  noise: NoiseEstimate | null;
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
 * Names clusters after known voices, best match first: each voice's reference is profiled under the
 * call's noise, then the closest (cluster, voice) pair within `threshold` is named, both leave, and
 * so on. A cluster gets at most one name and a name at most one cluster; a cluster no voice is close
 * enough to keeps its label.
 *
 * @example
 * nameSpeakers(diarizer.speakerProfiles(), [{ name: "agent", reference }], 0.4) // Map { "SPEAKER_01" => "agent" }
 */
export function nameSpeakers(
  call: CallProfiles,
  voices: readonly KnownVoice[],
  threshold: number,
): Map<string, string> {
  const references = voices.map((voice) => ({
    name: voice.name,
    profile: voice.reference.profileIn(call.noise),
  }));
  const pairs: { label: string; name: string; distance: number }[] = [];
  for (const [label, profile] of call.speakers) {
    for (const voice of references) {
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
