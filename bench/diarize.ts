/**
 * Group `diarize`: the classical speaker diarizer (inference-node/diarize) on synthetic espeak-ng
 * dialogues with known turns (test/helpers/dialogue.ts). DER is scored without a collar (the strict
 * figure; the note gives the customary 0.25 s-collar value too). Speed is wall time of push + finish
 * per audio minute against real time (60,000 ms per audio minute), so the ratio is the real-time
 * factor; memory is the retained feature bytes per audio minute.
 */
import { Diarizer, diarizationErrorRate, type SpeakerTurn } from "../inference-node/diarize/index.ts";
import { buildDialogue, type Dialogue } from "../test/helpers/dialogue.ts";
import { median, timeMs } from "./stats.ts";
import { type BenchGroup, result } from "./types.ts";

const RATE = 16_000;
const CHUNK = 30 * RATE; // the node decodes in 30 s windows
const ROUNDS = 3;

function run(dialogue: Dialogue): { turns: SpeakerTurn[]; bytes: number } {
  const diarizer = new Diarizer();
  for (let at = 0; at < dialogue.pcm.length; at += CHUNK)
    diarizer.push(dialogue.pcm.subarray(at, at + CHUNK));
  return { turns: diarizer.finish(), bytes: diarizer.featureBytes };
}

/** DER figure (percent) with the speaker count and the collar variant in the note. */
function der(name: string, dialogue: Dialogue, target: number | null) {
  const { turns } = run(dialogue);
  const strict = diarizationErrorRate(dialogue.turns, turns);
  const collared = diarizationErrorRate(dialogue.turns, turns, { collar: 0.25 });
  const found = new Set(turns.map((t) => t.speaker)).size;
  const truth = new Set(dialogue.turns.map((t) => t.speaker)).size;
  const note =
    `${(dialogue.seconds / 60).toFixed(1)} min, ${found}/${truth} speakers found; ` +
    `miss ${strict.missed.toFixed(1)} s, FA ${strict.falseAlarm.toFixed(1)} s, ` +
    `confusion ${strict.confusion.toFixed(1)} s; collar 0.25 s: ${(collared.der * 100).toFixed(2)}%` +
    (target === null ? "" : `; target < ${target}`);
  return result(name, strict.der * 100, null, "%", note);
}

export const diarize: BenchGroup = async () => {
  const [two, three, hour] = await Promise.all([
    buildDialogue(2, 40, 21),
    buildDialogue(3, 50, 22),
    buildDialogue(3, 480, 11),
  ]);
  const results = [der("diarize.der_2spk", two, 15), der("diarize.der_3spk", three, 15)];
  run(three); // warm-up for the JIT
  const short: number[] = [];
  for (let round = 0; round < ROUNDS; round++) short.push(await timeMs(async () => run(three)));
  const minutes = three.seconds / 60;
  results.push(
    result(
      "diarize.ms_per_audio_min",
      median(short) / minutes,
      60_000,
      "ms/audio min",
      `median of ${ROUNDS} runs over the ${minutes.toFixed(1)} min 3-speaker dialogue; ratio = real-time factor`,
    ),
  );
  let long: { turns: SpeakerTurn[]; bytes: number } = { turns: [], bytes: 0 };
  const hourMinutes = hour.seconds / 60;
  const longMs = await timeMs(async () => {
    long = run(hour);
  });
  const longDer = diarizationErrorRate(hour.turns, long.turns);
  results.push(
    result(
      "diarize.ms_per_audio_min_60min",
      longMs / hourMinutes,
      60_000,
      "ms/audio min",
      `one ${hourMinutes.toFixed(0)} min 3-speaker stream (clusters a subsample); DER ${(longDer.der * 100).toFixed(2)}%`,
    ),
    result(
      "diarize.bytes_per_audio_min",
      long.bytes / hourMinutes,
      null,
      "B/audio min",
      "retained features (block statistics + speech intervals) after the 60 min stream",
    ),
  );
  return results;
};
