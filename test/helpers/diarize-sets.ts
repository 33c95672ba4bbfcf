/**
 * The diarization evaluation set: seeded synthetic cases in named sets, built from two synthesizers
 * (espeak-ng variants at different pitches and rates, and festival's diphone and HTS voices) so a
 * diarizer tuned on it is not tuned to one engine. Short cases have turns of 2-3 s (each utterance
 * is the first sentence, from a seeded order, whose synthesized length fits) and pauses of 0.2-1.5 s.
 *
 * Sets: `short` (2 speakers, four turns in 8-15 s), `three` (3 speakers, about 20 s), `mixed` (festival with
 * espeak-ng, or two festival voices), `noisy` (pink noise at 10 dB SNR), `single` (one voice, 9-35 s,
 * the voice-note shape) and `long` (the minutes-long dialogues of {@link buildDialogue}).
 */
import {
  buildDialogue,
  buildExchange,
  type Dialogue,
  seededRandom,
  synthesize,
  type Utterance,
  type Voice,
} from "./dialogue.ts";

const RATE = 16_000;

/** Names of the evaluation sets. */
export type SetName = "short" | "three" | "mixed" | "noisy" | "single" | "long";

/** One evaluation case: its set, a unique name, the true speaker count and how to build it. */
export interface DiarizationCase {
  set: SetName;
  name: string;
  speakers: number;
  build: () => Promise<Dialogue>;
}

type Gender = "m" | "f";
type PoolVoice = Voice & { gender: Gender };

const ESPEAK: readonly PoolVoice[] = [
  { label: "us-m3", voice: "en-us+m3", pitch: 40, speed: 165, gain: 0.8, gender: "m" },
  { label: "scot-m7", voice: "en-gb-scotland+m7", pitch: 25, speed: 140, gain: 0.6, gender: "m" },
  { label: "us-m1", voice: "en-us+m1", pitch: 50, speed: 180, gain: 0.8, gender: "m" },
  { label: "rp-m2", voice: "en-gb-x-rp+m2", pitch: 35, speed: 155, gain: 0.7, gender: "m" },
  { label: "us-f3", voice: "en-us+f3", pitch: 60, speed: 170, gain: 0.8, gender: "f" },
  { label: "en-f4", voice: "en+f4", pitch: 65, speed: 160, gain: 0.7, gender: "f" },
  { label: "us-f2", voice: "en-us+f2", pitch: 55, speed: 185, gain: 0.8, gender: "f" },
  { label: "us-f5", voice: "en-us+f5", pitch: 70, speed: 150, gain: 0.7, gender: "f" },
];

const FESTIVAL: readonly PoolVoice[] = [
  { label: "kal", voice: "kal_diphone", engine: "festival", speed: 170, gain: 0.8, gender: "m" },
  { label: "ked", voice: "ked_diphone", engine: "festival", speed: 180, gain: 0.8, gender: "m" },
  { label: "slt", voice: "cmu_us_slt_arctic_hts", engine: "festival", speed: 165, gain: 0.9, gender: "f" },
];

/** Sentences of five to nine words: 2-3 s at the voices' rates. */
const SHORT_SENTENCES = [
  "Did you get my message about Friday?",
  "Yes, thanks for reminding me this morning.",
  "Can we move the meeting to ten?",
  "Ten o'clock works fine for me.",
  "Should I bring the printed reports along?",
  "No need, I will share my screen.",
  "Is the client joining us this time?",
  "I think so, she confirmed yesterday evening.",
  "Great, then I will book the big room.",
  "Please order some coffee for everyone too.",
  "How long do you think it will take?",
  "About an hour, maybe a little longer.",
  "I have another call right after lunch.",
  "Then let us keep the agenda short.",
  "Where did you park the delivery van?",
  "Behind the station, next to the bakery.",
  "The train was late again this morning.",
  "That happens every Monday, it seems.",
  "Could you pick up the kids at five?",
  "Sure, I will leave the office early.",
  "Do we still have milk in the fridge?",
  "We ran out, I will buy some more.",
  "The doctor moved my appointment to Tuesday.",
  "Do you want me to drive you there?",
  "My flight lands at half past seven.",
  "I will wait for you at the exit.",
  "Have you finished the budget for March?",
  "Almost, I need two more invoices first.",
  "The printer on the second floor is broken.",
  "I already called the repair service twice.",
  "What time does the pharmacy close today?",
  "It stays open until eight on weekdays.",
  "Let me know when the package arrives.",
  "It came an hour ago, it is downstairs.",
  "Are we still going hiking on Sunday?",
  "Only if the weather stays dry, I think.",
  "The new intern starts next Wednesday morning.",
  "I will show her around the building.",
  "Your voice keeps cutting out on this line.",
  "Sorry, the signal is weak in the garage.",
];

/** A turn fits when its synthesized length is within these seconds. */
const TURN_SECONDS: [number, number] = [2, 3];

/** Labels of the pool voices, by gender: espeak-ng variants first, then festival voices. */
export const POOL_LABELS = {
  male: [...ESPEAK, ...FESTIVAL].filter((v) => v.gender === "m").map((v) => v.label),
  female: [...ESPEAK, ...FESTIVAL].filter((v) => v.gender === "f").map((v) => v.label),
};

/** A pool voice by its label (the speakers bench builds its own dialogues from them). */
export function byLabel(label: string): PoolVoice {
  const voice = [...ESPEAK, ...FESTIVAL].find((v) => v.label === label);
  if (!voice) throw new Error(`no pool voice ${label}`);
  return voice;
}

/** `voice` with its pitch and rate moved by a seeded amount, so cases differ beyond the pool. */
function jitter(voice: PoolVoice, random: () => number): Voice {
  const shift = (value: number | undefined, by: number) =>
    value === undefined ? undefined : Math.round(value + (random() * 2 - 1) * by);
  const { gender: _gender, ...plain } = voice;
  return { ...plain, pitch: shift(voice.pitch, 8), speed: shift(voice.speed, 15) };
}

/** Utterances for `order` (indices into `voices`), each a sentence whose length fits a 2-3 s turn. */
async function plan(voices: Voice[], order: number[], random: () => number): Promise<Utterance[]> {
  let next = Math.floor(random() * SHORT_SENTENCES.length);
  const out: Utterance[] = [];
  for (const index of order) {
    const voice = voices[index]!;
    let best: { text: string; miss: number } | null = null;
    for (let tries = 0; tries < SHORT_SENTENCES.length && (best?.miss ?? 1) > 0; tries++) {
      const text = SHORT_SENTENCES[next++ % SHORT_SENTENCES.length]!;
      const seconds = (await synthesize(text, voice)).length / RATE;
      const miss = Math.max(0, TURN_SECONDS[0] - seconds, seconds - TURN_SECONDS[1]);
      if (!best || miss < best.miss) best = { text, miss };
    }
    out.push({ voice, text: best!.text, pause: 0.2 + 1.3 * random() });
  }
  return out;
}

/** `turns` speaker indices among `speakers`, never the same twice in a row, each at least twice. */
function turnOrder(speakers: number, turns: number, random: () => number): number[] {
  for (;;) {
    const order: number[] = [];
    for (let t = 0; t < turns; t++) {
      const others = [...Array(speakers).keys()].filter((k) => k !== order.at(-1));
      order.push(others[Math.floor(random() * others.length)]!);
    }
    if ([...Array(speakers).keys()].every((k) => order.filter((o) => o === k).length >= 2)) return order;
  }
}

/**
 * A seeded exchange among pool voices (by label, each jittered in pitch and rate) with `turns` turns
 * of 2-3 s, optionally under pink noise at `noiseSnrDb`.
 *
 * @example
 * const call = await exchangeCase("short", "my-case", ["us-m3", "slt"], 4, 7).build();
 */
export function exchangeCase(
  set: SetName,
  name: string,
  labels: string[],
  turns: number,
  seed: number,
  noiseSnrDb?: number,
): DiarizationCase {
  const voices = labels.map(byLabel);
  return {
    set,
    name,
    speakers: voices.length,
    build: async () => {
      const random = seededRandom(seed);
      const jittered = voices.map((v) => jitter(v, random));
      const order =
        voices.length === 1 ? new Array<number>(turns).fill(0) : turnOrder(voices.length, turns, random);
      return buildExchange(await plan(jittered, order, random), { seed, noiseSnrDb });
    },
  };
}

/**
 * Every evaluation case, in set order. Building a case synthesizes (and caches) its utterances.
 *
 * @example
 * for (const c of evaluationCases().filter((c) => c.set === "short")) score(await c.build());
 */
export function evaluationCases(): DiarizationCase[] {
  return [
    // Two speakers, four or five turns: mostly a male and a female voice, some same-gender pairs.
    exchangeCase("short", "short-m3-f3", ["us-m3", "us-f3"], 4, 101),
    exchangeCase("short", "short-m1-f4", ["us-m1", "en-f4"], 4, 102),
    exchangeCase("short", "short-scot-f2", ["scot-m7", "us-f2"], 4, 103),
    exchangeCase("short", "short-f5-rp", ["us-f5", "rp-m2"], 4, 104),
    exchangeCase("short", "short-f3-m1", ["us-f3", "us-m1"], 4, 105),
    exchangeCase("short", "short-m3-f5", ["us-m3", "us-f5"], 4, 106),
    exchangeCase("short", "short-m3-scot", ["us-m3", "scot-m7"], 4, 107),
    exchangeCase("short", "short-f4-f2", ["en-f4", "us-f2"], 4, 108),
    exchangeCase("three", "three-m3-f3-scot", ["us-m3", "us-f3", "scot-m7"], 6, 201),
    exchangeCase("three", "three-f4-m1-slt", ["en-f4", "us-m1", "slt"], 6, 202),
    exchangeCase("three", "three-kal-f2-rp", ["kal", "us-f2", "rp-m2"], 6, 203),
    exchangeCase("three", "three-f5-m3-ked", ["us-f5", "us-m3", "ked"], 6, 204),
    exchangeCase("mixed", "mixed-kal-f3", ["kal", "us-f3"], 4, 301),
    exchangeCase("mixed", "mixed-slt-m3", ["slt", "us-m3"], 4, 302),
    exchangeCase("mixed", "mixed-ked-slt", ["ked", "slt"], 4, 303),
    exchangeCase("mixed", "mixed-kal-m1", ["kal", "us-m1"], 4, 304),
    exchangeCase("mixed", "mixed-slt-f4", ["slt", "en-f4"], 4, 305),
    exchangeCase("noisy", "noisy-m3-f3", ["us-m3", "us-f3"], 4, 401, 10),
    exchangeCase("noisy", "noisy-kal-f2", ["kal", "us-f2"], 4, 402, 10),
    exchangeCase("noisy", "noisy-slt-scot", ["slt", "scot-m7"], 4, 403, 10),
    exchangeCase("noisy", "noisy-single-f5", ["us-f5"], 5, 404, 10),
    exchangeCase("single", "single-m3", ["us-m3"], 4, 501),
    exchangeCase("single", "single-f3", ["us-f3"], 6, 502),
    exchangeCase("single", "single-scot", ["scot-m7"], 10, 503),
    exchangeCase("single", "single-f4", ["en-f4"], 3, 504),
    exchangeCase("single", "single-kal", ["kal"], 5, 505),
    exchangeCase("single", "single-slt", ["slt"], 8, 506),
    exchangeCase("single", "single-ked", ["ked"], 4, 507),
    exchangeCase("single", "single-f2", ["us-f2"], 9, 508),
    { set: "long", name: "long-2spk-5min", speakers: 2, build: () => buildDialogue(2, 40, 21) },
    { set: "long", name: "long-3spk-6min", speakers: 3, build: () => buildDialogue(3, 50, 22) },
    { set: "long", name: "long-3spk-61min", speakers: 3, build: () => buildDialogue(3, 480, 11) },
  ];
}
