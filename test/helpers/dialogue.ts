/**
 * Synthetic dialogues for diarization tests and benchmarks: voices of two synthesizers (espeak-ng
 * variants and Debian's festival voices) take turns reading sentences, resampled by ffmpeg to 16 kHz
 * mono float32, joined with pauses (some shorter than the VAD hangover, so a change can fall inside
 * one speech interval) over a faint noise floor, optionally with pink background noise at a given
 * SNR. The reference turns are the exact extents of each utterance with its edge silence trimmed.
 * Utterances are cached by content hash in the OS temp dir.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { SpeakerTurn } from "../../protocol/transcription.ts";

const run = promisify(execFile);
const CACHE = path.join(tmpdir(), "voxedge-dialogue");
const RATE = 16_000;
let tempCounter = 0; // makes temp names unique when one process synthesizes the same text twice at once

/**
 * A synthetic speaker. espeak-ng (the default engine): `-v voice`, optional pitch (`-p`, 0-99) and
 * words per minute (`-s`). festival: `voice` names a festival voice (`kal_diphone`, `ked_diphone`,
 * `cmu_us_slt_arctic_hts`); `speed` becomes its Duration_Stretch (FESTIVAL_WPM / speed) and `pitch`
 * is not supported.
 */
export interface Voice {
  label: string;
  voice: string;
  engine?: "espeak-ng" | "festival";
  pitch?: number;
  speed?: number;
  gain: number;
}

/** Words per minute festival's English voices speak at Duration_Stretch 1 (about). */
const FESTIVAL_WPM = 175;

/**
 * Voices chosen to differ audibly: a British female (F0 about 190 Hz), a US male (about 90 Hz) and a
 * Scottish male of a different timbre (variant m7 reshapes the formants) but similar pitch, the hard
 * pair. Note `en-gb+f4` silently ignores the variant in espeak-ng 1.51; `en+f4` applies it.
 */
export const VOICES: readonly Voice[] = [
  { label: "alice", voice: "en+f4", pitch: 60, speed: 160, gain: 0.7 },
  { label: "bob", voice: "en-us+m3", pitch: 40, speed: 150, gain: 0.9 },
  { label: "dave", voice: "en-gb-scotland+m7", pitch: 25, speed: 140, gain: 0.6 },
];

const SENTENCES = [
  "Good morning, thanks for joining the call today.",
  "I wanted to go over the quarterly numbers before the board meeting.",
  "Sure, I have the spreadsheet open right here.",
  "Revenue grew by about twelve percent compared with last year.",
  "That is better than we expected, especially in the northern region.",
  "The shipping delays in March hurt us more than I thought.",
  "Can you send me the breakdown by product line?",
  "Of course, I will email it right after this meeting.",
  "What about the new warehouse, is it still on schedule?",
  "The contractor says the roof will be finished next week.",
  "Great. And the hiring plan for the support team?",
  "We have three offers out and two candidates said yes already.",
  "Let us make sure they get proper training before the holiday rush.",
  "I agree, last winter was chaotic without enough people on the phones.",
  "Another topic: the marketing budget needs a decision by Friday.",
  "I would rather spend more on search ads and less on print.",
  "Print still works for our older customers, though.",
  "Maybe we can test both and compare the results after a month.",
  "That sounds reasonable to me.",
  "Who is going to present the numbers to the board?",
  "I can do it, but I would like someone to review the slides first.",
  "Send them over tonight and I will look at them in the morning.",
  "Thanks. One more thing, the software licence renewal is due.",
  "How much did the price go up this time?",
  "Around eight percent, which is annoying but still acceptable.",
  "Let us ask whether a three year contract gives us a discount.",
  "Good idea, I will call their sales representative tomorrow.",
  "Is there anything else we need to cover today?",
  "Only the office move, and that can wait until next week.",
  "Perfect, then let us wrap up here. Thanks everyone.",
];

/** Deterministic uniform numbers in [0, 1) for a seed (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes `text` spoken by `voice` to the WAV file `wav` with the voice's engine. */
async function speak(text: string, voice: Voice, wav: string): Promise<void> {
  if (voice.engine === "festival") {
    if (voice.pitch !== undefined) throw new Error(`festival voice ${voice.voice}: pitch is not supported`);
    const script = `${wav}.txt`;
    await writeFile(script, text);
    const stretch = voice.speed === undefined ? 1 : FESTIVAL_WPM / voice.speed;
    await run("text2wave", [
      "-eval",
      `(voice_${voice.voice})`,
      "-eval",
      `(Parameter.set 'Duration_Stretch ${stretch.toFixed(3)})`,
      "-o",
      wav,
      script,
    ]);
    await rm(script, { force: true });
    return;
  }
  const args = ["-v", voice.voice, "-w", wav];
  if (voice.pitch !== undefined) args.push("-p", String(voice.pitch));
  if (voice.speed !== undefined) args.push("-s", String(voice.speed));
  await run("espeak-ng", [...args, text]);
}

/** 16 kHz mono float32 speech of `text` in `voice`, edge silence trimmed (cached). */
export async function synthesize(text: string, voice: Voice): Promise<Float32Array> {
  await mkdir(CACHE, { recursive: true });
  // espeak-ng keys keep their original shape so existing cache entries stay valid.
  const key = JSON.stringify(
    voice.engine === "festival"
      ? ["festival-2", voice.voice, voice.speed, text]
      : [voice.voice, voice.pitch, voice.speed, text],
  );
  const file = path.join(CACHE, `${createHash("sha1").update(key).digest("hex").slice(0, 16)}.f32`);
  const cached = await readFile(file).catch(() => null);
  if (cached) return new Float32Array(cached.buffer, cached.byteOffset, cached.byteLength / 4);
  const unique = `${process.pid}.${++tempCounter}`;
  const wav = `${file}.${unique}.wav`;
  await speak(text, voice, wav);
  const { stdout } = await run(
    "ffmpeg",
    ["-v", "error", "-i", wav, "-ar", String(RATE), "-ac", "1", "-f", "f32le", "pipe:1"],
    { encoding: "buffer", maxBuffer: 1 << 28 },
  );
  await rm(wav, { force: true });
  const raw = new Float32Array(stdout.buffer, stdout.byteOffset, stdout.byteLength / 4);
  let first = 0;
  let last = raw.length;
  while (first < last && Math.abs(raw[first]!) < 1e-3) first++;
  while (last > first && Math.abs(raw[last - 1]!) < 1e-3) last--;
  const pcm =
    voice.engine === "festival" ? trimQuietEdges(raw.subarray(first, last)) : raw.slice(first, last);
  const tmp = `${file}.${unique}.tmp`;
  await writeFile(tmp, pcm);
  await rename(tmp, file);
  return pcm;
}

/**
 * Copy of `pcm` without leading and trailing 10 ms frames more than 40 dB below its loudest frame:
 * festival pads utterances with 0.2-0.4 s of near-silence (about -55 dBFS) that a sample threshold
 * keeps, and that would otherwise count as speech in the reference turns.
 */
function trimQuietEdges(pcm: Float32Array): Float32Array {
  const frame = RATE / 100;
  const energies: number[] = [];
  for (let at = 0; at < pcm.length; at += frame) {
    let sum = 0;
    for (let s = at; s < Math.min(pcm.length, at + frame); s++) sum += pcm[s]! ** 2;
    energies.push(sum / frame);
  }
  const floor = Math.max(...energies) * 1e-4;
  const first = energies.findIndex((e) => e >= floor);
  const last = energies.findLastIndex((e) => e >= floor);
  return pcm.slice(first * frame, Math.min(pcm.length, (last + 1) * frame));
}

/** A dialogue's audio and its reference turns (speaker = voice label). */
export interface Dialogue {
  pcm: Float32Array;
  turns: SpeakerTurn[];
  seconds: number;
}

/** One utterance of a planned exchange and the pause after it, in seconds. */
export interface Utterance {
  voice: Voice;
  text: string;
  pause: number;
}

/** Options of {@link buildExchange}. */
export interface ExchangeOptions {
  /** Seed of the noise floor and the background noise. Default 1. */
  seed?: number;
  /** Adds pink background noise this many dB below the speech power (over the speech samples). */
  noiseSnrDb?: number;
}

/**
 * A dialogue of the given utterances in order, after 0.5 s of lead-in. Deterministic for a plan
 * and seed.
 *
 * @example
 * const call = await buildExchange([
 *   { voice: { label: "m", voice: "en-us+m3", gain: 0.8 }, text: "Are you coming?", pause: 0.4 },
 *   { voice: { label: "f", voice: "kal_diphone", engine: "festival", gain: 0.8 }, text: "Yes.", pause: 0 },
 * ], { noiseSnrDb: 10 });
 */
export async function buildExchange(plan: Utterance[], options: ExchangeOptions = {}): Promise<Dialogue> {
  return assemble(plan, seededRandom(options.seed ?? 1), options.noiseSnrDb);
}

/**
 * A dialogue of `turns` turns among the first `speakers` voices: the next speaker is drawn among the
 * others, each turn reads 1-3 sentences, pauses are 0.1-1.0 s. Deterministic for a given seed.
 */
export async function buildDialogue(speakers: number, turns: number, seed = 1): Promise<Dialogue> {
  const random = seededRandom(seed);
  const voices = VOICES.slice(0, speakers);
  const plan: Utterance[] = [];
  let current = -1;
  let sentence = Math.floor(random() * SENTENCES.length);
  for (let t = 0; t < turns; t++) {
    const others = voices.map((_, i) => i).filter((i) => i !== current || voices.length === 1);
    current = others[Math.floor(random() * others.length)]!;
    const count = 1 + Math.floor(random() * 3);
    const text = Array.from({ length: count }, () => SENTENCES[sentence++ % SENTENCES.length]).join(" ");
    const pause = random() < 0.25 ? 0.1 + 0.1 * random() : 0.3 + 0.7 * random();
    plan.push({ voice: voices[current]!, text, pause });
  }
  return assemble(plan, random);
}

/** Synthesizes and lays out `plan`; `random` continues into the noise floor. */
async function assemble(plan: Utterance[], random: () => number, noiseSnrDb?: number): Promise<Dialogue> {
  const clips: Float32Array[] = [];
  for (let i = 0; i < plan.length; i += 4) {
    const batch = plan.slice(i, i + 4).map((p) => synthesize(p.text, p.voice));
    clips.push(...(await Promise.all(batch)));
  }
  const lead = Math.round(0.5 * RATE);
  const length = plan.reduce((n, p, i) => n + clips[i]!.length + Math.round(p.pause * RATE), lead);
  const pcm = new Float32Array(length);
  const reference: SpeakerTurn[] = [];
  let at = lead;
  let speechEnergy = 0;
  let speechSamples = 0;
  for (const [i, p] of plan.entries()) {
    const clip = clips[i]!;
    for (let s = 0; s < clip.length; s++) {
      pcm[at + s] = clip[s]! * p.voice.gain;
      speechEnergy += pcm[at + s]! ** 2;
    }
    speechSamples += clip.length;
    reference.push({ start: at / RATE, end: (at + clip.length) / RATE, speaker: p.voice.label });
    at += clip.length + Math.round(p.pause * RATE);
  }
  // A faint white-noise floor (about -60 dBFS) so silence is not digital zero.
  for (let s = 0; s < pcm.length; s++) pcm[s] = pcm[s]! + (random() - 0.5) * 0.0035;
  if (noiseSnrDb !== undefined) {
    const noise = pinkNoise(pcm.length, random);
    const noisePower = noise.reduce((sum, x) => sum + x * x, 0) / noise.length;
    const target = speechEnergy / Math.max(1, speechSamples) / 10 ** (noiseSnrDb / 10);
    const scale = Math.sqrt(target / noisePower);
    for (let s = 0; s < pcm.length; s++) pcm[s] = pcm[s]! + noise[s]! * scale;
  }
  return { pcm, turns: reference, seconds: pcm.length / RATE };
}

/** Pink (1/f) noise by Paul Kellet's filter of white noise; unnormalized. */
export function pinkNoise(length: number, random: () => number): Float32Array {
  const out = new Float32Array(length);
  let [b0, b1, b2, b3, b4, b5, b6] = [0, 0, 0, 0, 0, 0, 0];
  for (let s = 0; s < length; s++) {
    const white = random() * 2 - 1;
    b0 = 0.99886 * b0 + white * 0.0555179;
    b1 = 0.99332 * b1 + white * 0.0750759;
    b2 = 0.969 * b2 + white * 0.153852;
    b3 = 0.8665 * b3 + white * 0.3104856;
    b4 = 0.55 * b4 + white * 0.5329522;
    b5 = -0.7616 * b5 - white * 0.016898;
    out[s] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + white * 0.5362;
    b6 = white * 0.115926;
  }
  return out;
}
