/**
 * Group `speakers`: known speakers (OpenAI's known_speaker_names[]/known_speaker_references[]) on
 * synthetic dialogues. Each case is an exchange of three pool voices (test/helpers/diarize-sets.ts:
 * espeak-ng and festival) of which two are enrolled with a reference clip cut from OTHER sentences of
 * the same voice (about 4-8 s) and the third is not. The diarizer runs as on the node, then
 * `nameSpeakers` names its clusters. Figures: the share of the enrolled voices' speech time labelled
 * with the right name (clean, and under pink noise at 10 dB SNR with clean references), and the share
 * of the unenrolled voice's time given any name. The threshold (KNOWN_SPEAKER_THRESHOLD) was tuned on
 * the `tuning` cases, which share no voice combination or seed with the measured ones; the tuning
 * figures are printed too, with the distances that set the threshold. `--speakers-threshold=X`
 * runs with another threshold (for tuning on those cases); `--speakers-seed=N` adds N to every case's
 * seed (other lines, pauses and noise, same voices: a second sample of each set);
 * `--speakers-only=tuning_noisy,noisy` runs only the named figures' conditions.
 */
import { Diarizer, type SpeakerTurn } from "../inference-node/diarize/index.ts";
import {
  KNOWN_SPEAKER_THRESHOLD,
  nameSpeakers,
  profileDistance,
} from "../inference-node/diarize/voice-profile.ts";
import { ReferenceRecorder, type VoiceReference } from "../inference-node/diarize/voice-reference.ts";
import { buildExchange, seededRandom, synthesize, type Utterance } from "../test/helpers/dialogue.ts";
import { byLabel } from "../test/helpers/diarize-sets.ts";
import { type BenchResult, result } from "./types.ts";

const RATE = 16_000;
const CHUNK = 30 * RATE;
const option = (name: string) => process.argv.find((a) => a.startsWith(`--speakers-${name}=`))?.split("=")[1];
const THRESHOLD = Number(option("threshold") ?? KNOWN_SPEAKER_THRESHOLD);
const SEED_OFFSET = Number(option("seed") ?? 0);
const ONLY = option("only")?.split(",");

/** Dialogue lines (2-3 s each at the pool's rates). */
const DIALOGUE = [
  "Did you get my message about Friday?",
  "Yes, thanks for reminding me this morning.",
  "Can we move the meeting to ten?",
  "Ten o'clock works fine for me.",
  "Should I bring the printed reports along?",
  "Please bring two copies for the client.",
  "The train was late again today.",
  "I will send the numbers after lunch.",
  "Who is booking the room upstairs?",
  "Let us keep the call under an hour.",
];

/** Reference lines: never spoken in a dialogue, so a reference is another utterance of the voice. */
const REFERENCE = [
  "My garden is full of yellow roses this summer.",
  "The library closes early on public holidays.",
  "Seven small boats sailed across the quiet harbour.",
];

interface SpeakerCase {
  name: string;
  /** Two enrolled voices, then the unenrolled one (pool labels). */
  voices: [string, string, string];
  seed: number;
}

/** The threshold was chosen on these cases only. */
const TUNING: SpeakerCase[] = [
  { name: "tune-m3-f3-rp", voices: ["us-m3", "us-f3", "rp-m2"], seed: 11 },
  { name: "tune-f4-m1-slt", voices: ["en-f4", "us-m1", "slt"], seed: 12 },
  { name: "tune-kal-f2-scot", voices: ["kal", "us-f2", "scot-m7"], seed: 13 },
  { name: "tune-f5-ked-f3", voices: ["us-f5", "ked", "us-f3"], seed: 14 },
];

/** The measured cases: other voice combinations and seeds. */
const MEASURED: SpeakerCase[] = [
  { name: "m1-f3-kal", voices: ["us-m1", "us-f3", "kal"], seed: 21 },
  { name: "scot-f4-m3", voices: ["scot-m7", "en-f4", "us-m3"], seed: 22 },
  { name: "slt-rp-f2", voices: ["slt", "rp-m2", "us-f2"], seed: 23 },
  { name: "f5-m3-ked", voices: ["us-f5", "us-m3", "ked"], seed: 24 },
  { name: "ked-f2-f5", voices: ["ked", "us-f2", "us-f5"], seed: 25 },
  { name: "f3-scot-m1", voices: ["us-f3", "scot-m7", "us-m1"], seed: 26 },
];

/** Seconds of each side's speech: labelled right, labelled with any name, in all. */
interface Tally {
  right: number;
  named: number;
  total: number;
}

interface CaseScore {
  enrolled: Tally;
  unenrolled: Tally;
  /** Profile distances of each reference to the cluster that holds most of its voice, and to the others. */
  same: number[];
  other: number[];
}

/** A clip of `lines` spoken by `label`, pauses of 0.3 s, at the voice's gain. */
async function referenceClip(label: string, lines: string[]): Promise<Float32Array> {
  const voice = byLabel(label);
  const parts = await Promise.all(lines.map((line) => synthesize(line, voice)));
  const pause = Math.round(0.3 * RATE);
  const out = new Float32Array(parts.reduce((n, p) => n + p.length + pause, 0));
  let at = 0;
  for (const part of parts) {
    for (let s = 0; s < part.length; s++) out[at + s] = (part[s] ?? 0) * voice.gain;
    at += part.length + pause;
  }
  return out;
}

async function dialogue(item: SpeakerCase, noiseSnrDb?: number) {
  const seed = item.seed + SEED_OFFSET;
  const random = seededRandom(seed);
  const order = [0, 1, 2, 0, 1, 2, 1, 0, 2, 0, 1, 2];
  let line = Math.floor(random() * DIALOGUE.length);
  const plan: Utterance[] = order.map((index) => ({
    voice: byLabel(item.voices[index] ?? ""),
    text: DIALOGUE[line++ % DIALOGUE.length] ?? "",
    pause: 0.3 + random(),
  }));
  return buildExchange(plan, { seed, noiseSnrDb });
}

function reference(pcm: Float32Array): VoiceReference | null {
  const recorder = new ReferenceRecorder();
  for (let at = 0; at < pcm.length; at += CHUNK) recorder.push(pcm.subarray(at, at + CHUNK));
  return recorder.finish();
}

function diarize(pcm: Float32Array, references: VoiceReference[]): Diarizer {
  const diarizer = new Diarizer({ references });
  for (let at = 0; at < pcm.length; at += CHUNK) diarizer.push(pcm.subarray(at, at + CHUNK));
  return diarizer;
}

const overlap = (a: SpeakerTurn, b: SpeakerTurn) =>
  Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));

async function scoreCase(item: SpeakerCase, noiseSnrDb?: number): Promise<CaseScore> {
  const enrolled = item.voices.slice(0, 2);
  const voices = [];
  for (const [i, label] of enrolled.entries()) {
    const lines = REFERENCE.slice(i, i + 2);
    const clip = reference(await referenceClip(label, lines));
    if (clip) voices.push({ name: label, reference: clip });
  }
  const call = await dialogue(item, noiseSnrDb);
  const diarizer = diarize(
    call.pcm,
    voices.map((voice) => voice.reference),
  );
  const turns = diarizer.finish();
  const profiles = diarizer.speakerProfiles();
  const names = nameSpeakers(profiles, voices, THRESHOLD);
  const named = turns.map((turn) => ({ ...turn, speaker: names.get(turn.speaker) ?? turn.speaker }));
  const score: CaseScore = {
    enrolled: { right: 0, named: 0, total: 0 },
    unenrolled: { right: 0, named: 0, total: 0 },
    same: [],
    other: [],
  };
  const takenNames = new Set(voices.map((voice) => voice.name));
  for (const truth of call.turns) {
    const side = enrolled.includes(truth.speaker) ? score.enrolled : score.unenrolled;
    side.total += truth.end - truth.start;
    for (const hyp of named) {
      const shared = overlap(truth, hyp);
      if (hyp.speaker === truth.speaker) side.right += shared;
      if (takenNames.has(hyp.speaker)) side.named += shared;
    }
  }
  // The distance of each reference to the cluster holding most of its voice (the right match) and to
  // every other cluster: the spread the threshold has to fall between.
  for (const voice of voices) {
    const reference = voice.reference.profileIn(profiles.noise);
    const time = new Map<string, number>();
    for (const truth of call.turns.filter((t) => t.speaker === voice.name)) {
      for (const hyp of turns) time.set(hyp.speaker, (time.get(hyp.speaker) ?? 0) + overlap(truth, hyp));
    }
    const home = [...time].sort((a, b) => b[1] - a[1])[0]?.[0];
    for (const [label, profile] of profiles.speakers) {
      (label === home ? score.same : score.other).push(profileDistance(profile, reference));
    }
  }
  return score;
}

const share = (tallies: Tally[], pick: (t: Tally) => number) =>
  (100 * tallies.reduce((n, t) => n + pick(t), 0)) /
  Math.max(
    1e-9,
    tallies.reduce((n, t) => n + t.total, 0),
  );

const range = (values: number[]) =>
  values.length === 0 ? "-" : `${Math.min(...values).toFixed(2)}..${Math.max(...values).toFixed(2)}`;

async function measure(prefix: string, cases: SpeakerCase[], noiseSnrDb?: number): Promise<BenchResult[]> {
  const scores: CaseScore[] = [];
  for (const item of cases) scores.push(await scoreCase(item, noiseSnrDb));
  const enrolled = scores.map((s) => s.enrolled);
  const unenrolled = scores.map((s) => s.unenrolled);
  const where = noiseSnrDb === undefined ? "clean" : `pink noise at ${noiseSnrDb} dB SNR, clean references`;
  const distances =
    `distances: right cluster ${range(scores.flatMap((s) => s.same))}, ` +
    `other clusters ${range(scores.flatMap((s) => s.other))}; threshold ${THRESHOLD}`;
  return [
    result(
      `${prefix}.right_name`,
      share(enrolled, (t) => t.right),
      null,
      "%",
      `${cases.length} cases of 3 voices (2 enrolled), ${where}; target >= ${noiseSnrDb === undefined ? 90 : 80}%; ${distances}`,
    ),
    result(
      `${prefix}.false_name`,
      share(unenrolled, (t) => t.named),
      null,
      "%",
      `share of the unenrolled voice's time given a name, ${where}; target <= 5%`,
    ),
  ];
}

/** The figures' conditions: name (after `speakers.`), cases and noise. */
const CONDITIONS: [string, SpeakerCase[], number | undefined][] = [
  ["tuning", TUNING, undefined],
  ["tuning_noisy", TUNING, 10],
  ["clean", MEASURED, undefined],
  ["noisy", MEASURED, 10],
];

export async function speakers(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const [name, cases, noiseSnrDb] of CONDITIONS) {
    if (ONLY && !ONLY.includes(name)) continue;
    results.push(...(await measure(`speakers.${name}`, cases, noiseSnrDb)));
  }
  return results;
}
