/**
 * Known voices inside the clustering and the resegmentation. When a request names speakers, their
 * references are profiled under the call's noise before the diarizer clusters; at each merge step
 * every reference holds the cluster it matches best (its anchor, when within the naming threshold),
 * and a cluster that reference would not name is not merged into its anchor. Without this, an
 * unenrolled voice whose windows the significance test could not tell from an enrolled voice's was
 * merged into that voice's cluster, which then still matched its reference and gave the intruder's
 * speech the name (bench/speakers.ts, seed +200 at 10 dB SNR: 19.0% of the unenrolled voice's time
 * named). Resegmentation gets the same anchors: a run of blocks it moves into an anchor from other
 * clusters must be speech the anchor's reference would name, or those blocks are barred from the
 * anchor (seed +200 clean: an unenrolled voice's turn whose windows were clustered with two other
 * voices went whole into an enrolled voice's cluster, 6.8% of its time named). Clusters no reference
 * holds merge and move as before, and nothing changes when no speaker is named.
 */
import type { BlockStats } from "./blocks.ts";
import type { Evidence } from "./evidence.ts";
import { blockProfiles, KNOWN_SPEAKER_THRESHOLD, profileDistance } from "./voice-profile.ts";

/** A reference's anchor: the label of its nearest cluster, and its distance to every cluster. */
interface Anchor {
  reference: Evidence;
  anchor: number;
  distances: Map<number, number>;
}

/** The anchor of each reference that has one: a cluster at most `threshold` away, the nearest. */
function anchorsOf(
  references: readonly Evidence[],
  clusters: ReadonlyMap<number, Evidence>,
  threshold: number,
): Anchor[] {
  return references.flatMap((reference) => {
    const distances = new Map(
      [...clusters].map(([label, profile]) => [label, profileDistance(reference, profile)]),
    );
    const [anchor, nearest] = [...distances].reduce(
      (best, next) => (next[1] < best[1] ? next : best),
      [-1, Number.POSITIVE_INFINITY],
    );
    return nearest <= threshold ? [{ reference, anchor, distances }] : [];
  });
}

/**
 * The clustering's keep-apart rule for these references' profiles: given the clusters' raw profiles
 * (by label), whether clusters `a` and `b` must stay apart because one is some reference's anchor
 * (its nearest cluster, at most `threshold` away) and the other lies beyond `threshold` from it.
 *
 * @example
 * const rule = anchoredApart(voices.map((voice) => voice.reference.profileIn(noise)));
 * rule(new Map([[0, agentCluster], [1, strangerCluster]]))(0, 1) // true: the agent's reference holds 0, would not name 1
 */
export function anchoredApart(
  references: readonly Evidence[],
  threshold = KNOWN_SPEAKER_THRESHOLD,
): (clusters: ReadonlyMap<number, Evidence>) => (a: number, b: number) => boolean {
  return (clusters) => {
    const anchors = anchorsOf(references, clusters, threshold);
    const far = (distances: Map<number, number>, label: number) =>
      (distances.get(label) ?? Number.POSITIVE_INFINITY) > threshold;
    return (a, b) =>
      anchors.some(
        ({ anchor, distances }) => (anchor === a && far(distances, b)) || (anchor === b && far(distances, a)),
      );
  };
}

/**
 * Blocks resegmentation may not give to a cluster, as `block * speakers + label`: each run of
 * consecutive voiced blocks that windows gave to other clusters (`initial`) and resegmentation moved
 * into a reference's anchor (`refined`), when the run's raw profile lies beyond `threshold` from that
 * reference. Anchors are taken over the clusters of `initial`. Empty when nothing strayed.
 *
 * @example
 * const barred = strayRuns(raw, initial, refined, 3, references);
 * resegment(stats, initial, 3, { ...options, barred: (b, k) => barred.has(b * 3 + k) });
 */
export function strayRuns(
  raw: BlockStats,
  initial: Int32Array,
  refined: Int32Array,
  speakers: number,
  references: readonly Evidence[],
  threshold = KNOWN_SPEAKER_THRESHOLD,
): Set<number> {
  const profiles = blockProfiles(raw, initial, speakers);
  const anchors = anchorsOf(references, new Map(profiles.entries()), threshold);
  const barred = new Set<number>();
  const check = (run: number[], label: number) => {
    const held = anchors.filter(({ anchor }) => anchor === label);
    if (run.length === 0 || held.length === 0) return;
    const owners = new Int32Array(initial.length).fill(-1);
    for (const b of run) owners[b] = 0;
    const [profile] = blockProfiles(raw, owners, 1);
    const strays = held.some(({ reference }) => {
      const distance = profile ? profileDistance(reference, profile) : Number.POSITIVE_INFINITY;
      return Number.isFinite(distance) && distance > threshold; // too few blocks to compare: left alone
    });
    if (strays) for (const b of run) barred.add(b * speakers + label);
  };
  let run: number[] = [];
  let label = -1;
  for (let b = 0; b < refined.length; b++) {
    if ((raw.counts[b] ?? 0) === 0) continue; // a pause neither joins nor breaks a run
    const moved = (initial[b] ?? -1) >= 0 && initial[b] !== refined[b];
    if (!moved || refined[b] !== label) {
      check(run, label);
      run = [];
    }
    if (moved) {
      label = refined[b] ?? -1;
      run.push(b);
    }
  }
  check(run, label);
  return barred;
}
