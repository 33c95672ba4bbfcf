/** One figure of `npm run bench`: ours against the reference measured in the same run. */
export interface BenchResult {
  name: string;
  ours: number;
  reference: number | null;
  /** ours / reference; null when the group has no reference for this figure. */
  ratio: number | null;
  unit: string;
  note: string;
}

/** A bench group: runs its measurements and returns the figures. */
export type BenchGroup = () => Promise<BenchResult[]>;

export function result(
  name: string,
  ours: number,
  reference: number | null,
  unit: string,
  note = "",
): BenchResult {
  const ratio = reference ? ours / reference : null;
  return { name, ours, reference, ratio, unit, note };
}
