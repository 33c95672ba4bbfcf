/**
 * Known voices inside the clustering. When a request names speakers, their references are profiled
 * under the call's noise before the diarizer clusters; at each merge step every reference holds the
 * cluster it matches best (its anchor, when within the naming threshold), and a cluster that
 * reference would not name is not merged into its anchor. Without this, an unenrolled voice whose
 * windows the significance test could not tell from an enrolled voice's was merged into that
 * voice's cluster, which then still matched its reference and gave the intruder's speech the name
 * (bench/speakers.ts, seed +200 at 10 dB SNR: 19.0% of the unenrolled voice's time named). Clusters
 * no reference holds merge as before, and nothing changes when no speaker is named.
 */
import type { Evidence } from "./evidence.ts";
import { KNOWN_SPEAKER_THRESHOLD, profileDistance } from "./voice-profile.ts";

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
    const anchors = references.flatMap((reference) => {
      const distances = new Map(
        [...clusters].map(([label, profile]) => [label, profileDistance(reference, profile)]),
      );
      const [anchor, nearest] = [...distances].reduce(
        (best, next) => (next[1] < best[1] ? next : best),
        [-1, Number.POSITIVE_INFINITY],
      );
      return nearest <= threshold ? [{ anchor, distances }] : [];
    });
    const far = (distances: Map<number, number>, label: number) =>
      (distances.get(label) ?? Number.POSITIVE_INFINITY) > threshold;
    return (a, b) =>
      anchors.some(
        ({ anchor, distances }) => (anchor === a && far(distances, b)) || (anchor === b && far(distances, a)),
      );
  };
}
