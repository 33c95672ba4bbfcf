/**
 * 16-bit mono PCM WAV in memory: parse, write, silence, concatenation and trimming (the header itself
 * is protocol/wav.ts's, shared with the Worker). Narration is assembled here from synthesized pieces,
 * so every word offset is known exactly from sample counts.
 */
import { readFile, writeFile } from "node:fs/promises";
import { pcmWavHeader, readWav as readWavHeader } from "../../../protocol/wav.ts";

export interface Pcm {
  sampleRate: number;
  /** Mono signed 16-bit samples. */
  samples: Int16Array;
}

/**
 * Parses a PCM16 WAV (protocol/wav.ts reads and checks the header); multi-channel input is mixed to
 * mono. Throws on anything else.
 */
export function parseWav(bytes: Buffer): Pcm {
  const wav = readWavHeader(bytes);
  if (wav.kind === "not_wav") throw new Error("not a RIFF/WAVE file");
  if (wav.kind === "invalid") throw new Error(wav.reason);
  const { format, dataOffset, dataBytes } = wav;
  if (format.encoding !== "pcm" || format.bitsPerSample !== 16) {
    throw new Error(`unsupported WAV format (${format.encoding}, ${format.bitsPerSample} bits)`);
  }
  const frames = dataBytes / format.blockAlign;
  const samples = new Int16Array(frames);
  for (let i = 0; i < frames; i += 1) {
    let sum = 0;
    for (let c = 0; c < format.channels; c += 1)
      sum += bytes.readInt16LE(dataOffset + (i * format.channels + c) * 2);
    samples[i] = Math.round(sum / format.channels);
  }
  return { sampleRate: format.sampleRate, samples };
}

export async function readWav(path: string): Promise<Pcm> {
  return parseWav(await readFile(path));
}

export function encodeWav(pcm: Pcm): Buffer {
  const dataBytes = pcm.samples.length * 2;
  return Buffer.concat([
    pcmWavHeader({ channels: 1, sampleRate: pcm.sampleRate, bitsPerSample: 16 }, dataBytes),
    new Uint8Array(pcm.samples.buffer, pcm.samples.byteOffset, dataBytes),
  ]);
}

export async function writeWav(path: string, pcm: Pcm): Promise<void> {
  await writeFile(path, encodeWav(pcm));
}

export const durationOf = (pcm: Pcm) => pcm.samples.length / pcm.sampleRate;

/** Amplitude under which a sample counts as silence (about -50 dBFS). */
export const SILENCE_LEVEL = 100;

/** Index range [start, end) of the audible part (the whole buffer's length twice when silent). */
export function audibleRange(samples: Int16Array, level = SILENCE_LEVEL): [number, number] {
  let start = 0;
  while (start < samples.length && Math.abs(samples[start] ?? 0) < level) start += 1;
  let end = samples.length;
  while (end > start && Math.abs(samples[end - 1] ?? 0) < level) end -= 1;
  return [start, end];
}

/** Cuts leading and trailing silence. */
export function trimSilence(pcm: Pcm): Pcm {
  const [start, end] = audibleRange(pcm.samples);
  return { sampleRate: pcm.sampleRate, samples: pcm.samples.slice(start, end) };
}

/**
 * Audible stretches separated by at least `minGapSec` of silence, as [startSec, endSec] pairs.
 * Short dips (stop consonants, ~50-120 ms) stay inside a stretch.
 */
export function audibleIslands(pcm: Pcm, minGapSec: number, level = SILENCE_LEVEL): [number, number][] {
  const minGap = Math.round(minGapSec * pcm.sampleRate);
  const islands: [number, number][] = [];
  let islandStart = -1;
  let lastLoud = -1;
  pcm.samples.forEach((value, i) => {
    if (Math.abs(value) < level) return;
    if (islandStart < 0) islandStart = i;
    else if (i - lastLoud > minGap) {
      islands.push([islandStart, lastLoud + 1]);
      islandStart = i;
    }
    lastLoud = i;
  });
  if (islandStart >= 0) islands.push([islandStart, lastLoud + 1]);
  return islands.map(([a, b]) => [a / pcm.sampleRate, b / pcm.sampleRate]);
}

/** Sample-exact concatenation; `gapSec` of silence between pieces where given. */
export function concatPcm(sampleRate: number, pieces: readonly (Int16Array | number)[]): Pcm {
  const lengths = pieces.map((p) => (typeof p === "number" ? Math.round(p * sampleRate) : p.length));
  const samples = new Int16Array(lengths.reduce((a, b) => a + b, 0));
  let at = 0;
  pieces.forEach((piece, i) => {
    if (typeof piece !== "number") samples.set(piece, at);
    at += lengths[i] ?? 0;
  });
  return { sampleRate, samples };
}

/** Resamples by linear interpolation (pieces from different engines meet at one rate). */
export function resample(pcm: Pcm, sampleRate: number): Pcm {
  if (pcm.sampleRate === sampleRate) return pcm;
  const ratio = pcm.sampleRate / sampleRate;
  const out = new Int16Array(Math.floor(pcm.samples.length / ratio));
  for (let i = 0; i < out.length; i += 1) {
    const x = i * ratio;
    const j = Math.floor(x);
    const a = pcm.samples[j] ?? 0;
    const b = pcm.samples[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (x - j));
  }
  return { sampleRate, samples: out };
}
