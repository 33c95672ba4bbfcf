/**
 * Group `diarize`: the classical speaker diarizer (inference-node/diarize) on the synthetic
 * evaluation set of test/helpers/diarize-sets.ts (espeak-ng and festival voices, known turns).
 * Per set: DER pooled over its cases (errors over reference speech, no collar: the strict figure;
 * the note gives the customary 0.25 s-collar value) and how many cases got the true speaker count.
 * Speaker-count accuracy is the fraction of all cases whose detected count equals the truth. Speed
 * is wall time of push + finish per audio minute against real time (60,000 ms per audio minute), so
 * the ratio is the real-time factor; memory is the retained feature bytes per audio minute.
 */
import { Diarizer, diarizationErrorRate, type SpeakerTurn } from "../inference-node/diarize/index.ts";
import type { Dialogue } from "../test/helpers/dialogue.ts";
import { type DiarizationCase, evaluationCases, type SetName } from "../test/helpers/diarize-sets.ts";
import { median, timeMs } from "./stats.ts";
import { type BenchGroup, type BenchResult, result } from "./types.ts";

const RATE = 16_000;
const CHUNK = 30 * RATE; // the node decodes in 30 s windows
const ROUNDS = 3;
const SET_TITLES: Record<SetName, string> = {
  short: "2 speakers in 8-15 s, turns of 2-3 s",
  three: "3 speakers in about 20 s",
  mixed: "festival with espeak-ng voices, 2 speakers",
  noisy: "pink noise at 10 dB SNR, 1-2 speakers",
  single: "one speaker, 9-35 s",
  long: "5-6 min dialogues and a 61 min stream",
};

function run(dialogue: Dialogue): { turns: SpeakerTurn[]; bytes: number } {
  const diarizer = new Diarizer();
  for (let at = 0; at < dialogue.pcm.length; at += CHUNK)
    diarizer.push(dialogue.pcm.subarray(at, at + CHUNK));
  return { turns: diarizer.finish(), bytes: diarizer.featureBytes };
}

/** Scores of one case. */
interface Scored {
  case: DiarizationCase;
  seconds: number;
  found: number;
  strict: ReturnType<typeof diarizationErrorRate>;
  collared: ReturnType<typeof diarizationErrorRate>;
}

function score(item: DiarizationCase, dialogue: Dialogue, turns: SpeakerTurn[]): Scored {
  return {
    case: item,
    seconds: dialogue.seconds,
    found: new Set(turns.map((t) => t.speaker)).size,
    strict: diarizationErrorRate(dialogue.turns, turns),
    collared: diarizationErrorRate(dialogue.turns, turns, { collar: 0.25 }),
  };
}

const percent = (errors: number, total: number) => (total > 0 ? (100 * errors) / total : 0);
const errors = (s: ReturnType<typeof diarizationErrorRate>) => s.missed + s.falseAlarm + s.confusion;

/** Pooled DER of one set, with counts, misses by case and the collared figure in the note. */
function setResult(set: SetName, scored: Scored[]) {
  const total = scored.reduce((sum, s) => sum + s.strict.total, 0);
  const strict = percent(
    scored.reduce((sum, s) => sum + errors(s.strict), 0),
    total,
  );
  const collared = percent(
    scored.reduce((sum, s) => sum + errors(s.collared), 0),
    scored.reduce((sum, s) => sum + s.collared.total, 0),
  );
  const right = scored.filter((s) => s.found === s.case.speakers).length;
  const wrong = scored
    .filter((s) => s.found !== s.case.speakers)
    .map((s) => `${s.case.name} ${s.found}/${s.case.speakers}`);
  const note =
    `${SET_TITLES[set]}: ${scored.length} cases, ${(total / 60).toFixed(1)} min speech; ` +
    `count right ${right}/${scored.length}${wrong.length > 0 ? ` (wrong: ${wrong.join(", ")})` : ""}; ` +
    `collar 0.25 s: ${collared.toFixed(2)}%`;
  return result(`diarize.der_${set}`, strict, null, "%", note);
}

export const diarize: BenchGroup = async () => {
  const cases = evaluationCases();
  const scored: Scored[] = [];
  let hour: { dialogue: Dialogue; minutes: number } | null = null;
  let three: Dialogue | null = null;
  const clips: Dialogue[] = [];
  for (const item of cases) {
    const dialogue = await item.build();
    if (item.name === "long-3spk-61min") {
      // The hour stream is scored from its timed run below.
      hour = { dialogue, minutes: dialogue.seconds / 60 };
      continue;
    }
    if (item.name === "long-3spk-6min") three = dialogue;
    if (item.set !== "long") clips.push(dialogue);
    scored.push(score(item, dialogue, run(dialogue).turns));
  }
  if (!hour || !three) throw new Error("bench diarize: the long cases are missing from the evaluation set");
  const results: BenchResult[] = [];
  let longRun: { turns: SpeakerTurn[]; bytes: number } = { turns: [], bytes: 0 };
  const hourMs = await timeMs(async () => {
    longRun = run(hour.dialogue);
  });
  const hourItem = cases.find((c) => c.name === "long-3spk-61min")!;
  scored.push(score(hourItem, hour.dialogue, longRun.turns));
  for (const set of Object.keys(SET_TITLES) as SetName[]) {
    results.push(
      setResult(
        set,
        scored.filter((s) => s.case.set === set),
      ),
    );
  }
  for (const s of scored.filter((s) => s.case.set === "long")) {
    results.push(
      result(
        `diarize.der_${s.case.name}`,
        s.strict.der * 100,
        null,
        "%",
        `${(s.seconds / 60).toFixed(1)} min, ${s.found}/${s.case.speakers} speakers found; ` +
          `miss ${s.strict.missed.toFixed(1)} s, FA ${s.strict.falseAlarm.toFixed(1)} s, ` +
          `confusion ${s.strict.confusion.toFixed(1)} s; collar 0.25 s: ${(s.collared.der * 100).toFixed(2)}%`,
      ),
    );
  }
  const right = scored.filter((s) => s.found === s.case.speakers).length;
  results.push(
    result(
      "diarize.speaker_count_accuracy",
      right / scored.length,
      null,
      "fraction",
      `${right} of ${scored.length} cases (all sets) got the true speaker count`,
    ),
  );
  run(three); // warm-up for the JIT
  const short: number[] = [];
  for (let round = 0; round < ROUNDS; round++) short.push(await timeMs(async () => run(three)));
  const minutes = three.seconds / 60;
  const clipMinutes = clips.reduce((sum, d) => sum + d.seconds / 60, 0);
  const clipMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++)
    clipMs.push(
      await timeMs(async () => {
        for (const dialogue of clips) run(dialogue);
      }),
    );
  results.push(
    result(
      "diarize.ms_per_audio_min",
      median(short) / minutes,
      60_000,
      "ms/audio min",
      `median of ${ROUNDS} runs over the ${minutes.toFixed(1)} min 3-speaker dialogue; ratio = real-time factor`,
    ),
    result(
      "diarize.ms_per_audio_min_clips",
      median(clipMs) / clipMinutes,
      60_000,
      "ms/audio min",
      `median of ${ROUNDS} passes over the ${clips.length} clips of 8-35 s (${clipMinutes.toFixed(1)} min)`,
    ),
    result(
      "diarize.ms_per_audio_min_60min",
      hourMs / hour.minutes,
      60_000,
      "ms/audio min",
      `one ${hour.minutes.toFixed(0)} min 3-speaker stream (clusters a subsample)`,
    ),
    result(
      "diarize.bytes_per_audio_min",
      longRun.bytes / hour.minutes,
      null,
      "B/audio min",
      "retained features (block statistics + speech intervals) after the 60 min stream",
    ),
  );
  return results;
};
