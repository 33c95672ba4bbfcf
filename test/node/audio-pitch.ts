/** A heard check of rendered speech: the median pitch of a stretch of a file, by the diarizer's pitch tracker. */
import { execFileSync } from "node:child_process";
import { parseWav } from "../../inference-node/content/tts/wav.ts";
import { PitchTracker } from "../../inference-node/diarize/pitch.ts";

/** Median pitch (Hz) of a stretch of the overview's audio, decoded by ffmpeg to 16 kHz. */
export function medianPitch(path: string, start: number, end: number): number {
  const wav = execFileSync(
    "ffmpeg",
    [
      "-v",
      "error",
      "-ss",
      String(start),
      "-to",
      String(end),
      "-i",
      path,
      "-ac",
      "1",
      "-ar",
      "16000",
      "-f",
      "wav",
      "pipe:1",
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const pcm = parseWav(wav);
  const tracker = new PitchTracker();
  tracker.feed(Float32Array.from(pcm.samples, (v) => v / 32768));
  const f0: number[] = [];
  for (let frame = 0; frame < Math.floor((pcm.samples.length / 16_000) * 100) - 3; frame++) {
    const log = tracker.logF0(frame);
    if (Number.isFinite(log)) f0.push(Math.exp(log));
  }
  f0.sort((a, b) => a - b);
  return f0[Math.floor(f0.length / 2)] ?? 0;
}
