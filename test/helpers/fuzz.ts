/**
 * Shared settings of the property (fuzz) tests: every run is seeded, so a failure replays exactly, and
 * bounded, so the whole fuzz suite stays within CI's budget. `FUZZ_SEED` replays or varies a run and
 * `FUZZ_SCALE` multiplies the run counts for a longer local session (Node tests only: the Worker tests
 * run inside workerd, which does not see the shell's environment).
 *
 * @example fc.assert(property, fuzzRuns(200)); // FUZZ_SCALE=20 npx vitest run test/node/fuzz-url-policy.test.ts
 */

const environment = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;

/** The seed every property starts from unless FUZZ_SEED says otherwise. */
export const FUZZ_SEED = Number(environment?.FUZZ_SEED ?? 20_260_514);

/** fast-check parameters: the seed, and `runs` (times FUZZ_SCALE) generated cases. */
export function fuzzRuns(runs: number): { seed: number; numRuns: number; endOnFailure: true } {
  const scale = Number(environment?.FUZZ_SCALE ?? 1);
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(runs * scale)), endOnFailure: true };
}
