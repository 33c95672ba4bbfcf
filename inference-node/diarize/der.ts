/**
 * Diarization Error Rate, as in NIST md-eval: (missed speech + false alarm + speaker confusion) /
 * total reference speech, under the one-to-one reference→hypothesis speaker mapping that maximizes the
 * matched time (found with the Hungarian algorithm). Overlapping speech counts once per speaker.
 */
import type { SpeakerTurn } from "../../protocol/transcription.ts";

/** Error components in seconds; `der` is their sum over `total` (0 when there is no reference). */
export interface DerBreakdown {
  der: number;
  missed: number;
  falseAlarm: number;
  confusion: number;
  total: number;
}

/**
 * Assignment maximizing the summed `score[row][col]` (rows and columns may differ in count); returns
 * the column of every row, or -1 for rows left unmatched. O(n^3).
 *
 * @example
 * maxAssignment([[1, 5], [4, 1]]); // [1, 0]
 */
export function maxAssignment(score: number[][]): number[] {
  const rows = score.length;
  const cols = Math.max(0, ...score.map((r) => r.length));
  const n = Math.max(rows, cols);
  const top = Math.max(0, ...score.flat());
  const cost = (i: number, j: number) => top - (score[i - 1]?.[j - 1] ?? 0); // 1-based, zero-padded
  // Potentials u (rows) and v (columns); p[j] is the row matched to column j; column 0 is a sentinel.
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const p = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
    const used = new Uint8Array(n + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0] ?? 0;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0, j) - (u[i0] ?? 0) - (v[j] ?? 0);
        if (cur < (minv[j] ?? 0)) [minv[j], way[j]] = [cur, j0];
        if ((minv[j] ?? 0) < delta) [delta, j1] = [minv[j] ?? 0, j];
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          const row = p[j] ?? 0;
          u[row] = (u[row] ?? 0) + delta;
          v[j] = (v[j] ?? 0) - delta;
        } else minv[j] = (minv[j] ?? 0) - delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0] ?? 0;
      p[j0] = p[j1] ?? 0;
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= cols; j++) if ((p[j] ?? 0) >= 1 && (p[j] ?? 0) <= rows) out[(p[j] ?? 0) - 1] = j - 1;
  return out;
}

/**
 * DER of `hypothesis` against `reference`. With `collar` > 0, `collar` seconds on each side of every
 * reference turn boundary are not scored (0.25 s is the customary value); the default 0 scores all.
 *
 * @example
 * const { der } = diarizationErrorRate(
 *   [{ start: 0, end: 10, speaker: "alice" }],
 *   [{ start: 0, end: 8, speaker: "SPEAKER_00" }, { start: 8, end: 10, speaker: "SPEAKER_01" }],
 * ); // 0.2: two seconds of confusion over ten seconds of speech
 */
export function diarizationErrorRate(
  reference: SpeakerTurn[],
  hypothesis: SpeakerTurn[],
  options: { collar?: number } = {},
): DerBreakdown {
  const collar = options.collar ?? 0;
  const refIds = [...new Set(reference.map((t) => t.speaker))];
  const hypIds = [...new Set(hypothesis.map((t) => t.speaker))];
  // Sweep over events: +1/-1 on a speaker's active count, or on the depth of unscored collar zones.
  const events: { t: number; side: "ref" | "hyp" | "skip"; id: number; delta: number }[] = [];
  const add = (side: "ref" | "hyp", ids: string[]) => (turn: SpeakerTurn) => {
    if (turn.end <= turn.start) return;
    const id = ids.indexOf(turn.speaker);
    events.push({ t: turn.start, side, id, delta: 1 }, { t: turn.end, side, id, delta: -1 });
  };
  reference.forEach(add("ref", refIds));
  hypothesis.forEach(add("hyp", hypIds));
  if (collar > 0) {
    for (const t of reference.flatMap((turn) => [turn.start, turn.end])) {
      events.push(
        { t: t - collar, side: "skip", id: 0, delta: 1 },
        { t: t + collar, side: "skip", id: 0, delta: -1 },
      );
    }
  }
  events.sort((a, b) => a.t - b.t);
  const refActive = new Int32Array(refIds.length);
  const hypActive = new Int32Array(hypIds.length);
  const overlap = refIds.map(() => new Array<number>(hypIds.length).fill(0));
  let skip = 0;
  let previous = events[0]?.t ?? 0;
  const result = { der: 0, missed: 0, falseAlarm: 0, confusion: 0, total: 0 };
  for (const event of events) {
    const span = event.t - previous;
    if (span > 0 && skip === 0) {
      const refs = [...refActive.keys()].filter((r) => (refActive[r] ?? 0) > 0);
      const hyps = [...hypActive.keys()].filter((h) => (hypActive[h] ?? 0) > 0);
      result.total += refs.length * span;
      result.missed += Math.max(0, refs.length - hyps.length) * span;
      result.falseAlarm += Math.max(0, hyps.length - refs.length) * span;
      result.confusion += Math.min(refs.length, hyps.length) * span; // matched time is subtracted below
      for (const r of refs) {
        const row = overlap[r] ?? [];
        for (const h of hyps) row[h] = (row[h] ?? 0) + span;
      }
    }
    previous = event.t;
    if (event.side === "skip") skip += event.delta;
    else {
      const active = event.side === "ref" ? refActive : hypActive;
      active[event.id] = (active[event.id] ?? 0) + event.delta;
    }
  }
  maxAssignment(overlap).forEach((h, r) => {
    if (h >= 0) result.confusion -= overlap[r]?.[h] ?? 0;
  });
  result.confusion = Math.max(0, result.confusion);
  result.der = result.total > 0 ? (result.missed + result.falseAlarm + result.confusion) / result.total : 0;
  return result;
}
