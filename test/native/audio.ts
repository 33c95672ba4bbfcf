/**
 * Test audio: espeak-ng speech resampled by ffmpeg to 16 kHz mono, parsed into a Float32Array.
 * Files are cached in the OS temp dir by content hash.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { readWav } from "../../protocol/wav.ts";

const run = promisify(execFile);
const CACHE = path.join(tmpdir(), "voxedge-test-audio");

/** Samples of a RIFF/WAVE file (header read by protocol/wav.ts): 16-bit PCM or 32-bit float, first channel. */
export function parseWav(buf: Buffer): { sampleRate: number; samples: Float32Array } {
  const wav = readWav(buf);
  if (wav.kind !== "wav") throw new Error(wav.kind === "invalid" ? wav.reason : "not a RIFF/WAVE file");
  const { encoding, bitsPerSample, blockAlign, sampleRate } = wav.format;
  const samples = new Float32Array(wav.dataBytes / blockAlign);
  for (let i = 0; i < samples.length; i++) {
    const at = wav.dataOffset + i * blockAlign;
    if (encoding === "pcm" && bitsPerSample === 16) samples[i] = buf.readInt16LE(at) / 32768;
    else if (encoding === "float" && bitsPerSample === 32) samples[i] = buf.readFloatLE(at);
    else throw new Error(`unsupported WAV format ${encoding}/${bitsPerSample} bit`);
  }
  return { sampleRate, samples };
}

async function cached(key: string, make: (file: string) => Promise<void>): Promise<string> {
  await mkdir(CACHE, { recursive: true });
  const file = path.join(CACHE, `${createHash("sha1").update(key).digest("hex").slice(0, 16)}.wav`);
  if (await stat(file).catch(() => null)) return file;
  const tmp = `${file}.${process.pid}.tmp.wav`;
  await make(tmp);
  await rename(tmp, file);
  return file;
}

/** espeak-ng speech of `text` as a 16 kHz mono 16-bit WAV path (cached). */
export async function speechWav(text: string, voice = "en"): Promise<string> {
  return cached(`speech:${voice}:${text}`, async (out) => {
    const raw = `${out}.espeak.wav`;
    await run("espeak-ng", ["-v", voice, "-w", raw, text]);
    await run("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-i",
      raw,
      "-ar",
      "16000",
      "-ac",
      "1",
      "-c:a",
      "pcm_s16le",
      out,
    ]);
  });
}

/** espeak-ng speech of `text` as 16 kHz mono samples. */
export async function speechPcm(text: string, voice = "en"): Promise<Float32Array> {
  const { sampleRate, samples } = parseWav(await readFile(await speechWav(text, voice)));
  if (sampleRate !== 16000) throw new Error(`expected 16 kHz, got ${sampleRate}`);
  return samples;
}

/** `pcm` repeated until it is at least `seconds` long. */
export function repeatTo(pcm: Float32Array, seconds: number): Float32Array {
  const n = Math.ceil(seconds * 16000);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += pcm.length) out.set(pcm.subarray(0, Math.min(pcm.length, n - i)), i);
  return out;
}

export const SENTENCE =
  "The quick brown fox jumps over the lazy dog. Voxedge turns speech into text at the edge.";
