/** The 5 s speech clip the synchronous-route benches send, and the multipart form that carries it. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { speechWav } from "../test/native/audio.ts";

const AUDIO_CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), ".cache", "audio");

/** A 5 s 16 kHz mono WAV of `sentence` (espeak-ng, padded with ffmpeg), cached as `name`. */
export async function prepareClip(name: string, sentence: string): Promise<Buffer> {
  await mkdir(AUDIO_CACHE, { recursive: true });
  const out = path.join(AUDIO_CACHE, name);
  if (!existsSync(out)) {
    const speech = await speechWav(sentence);
    const args = ["-v", "error", "-y", "-i", speech, "-af", "apad", "-t", "5", "-ar", "16000", "-ac", "1"];
    const res = spawnSync("ffmpeg", [...args, "-c:a", "pcm_s16le", out], { stdio: "inherit" });
    if (res.status !== 0) throw new Error("ffmpeg failed to make the 5 s clip");
  }
  return readFile(out);
}

/** A multipart form of `fields` and the clip as `file`. */
export function clipForm(wav: Buffer, fields: Record<string, string>): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append("file", new Blob([wav], { type: "audio/wav" }), "clip.wav");
  return body;
}
