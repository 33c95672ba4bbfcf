import { spawn } from "node:child_process";
import { TaskFailureError } from "../task-failure.ts";
import { ffmpegPath } from "./ffmpeg-path.ts";
import { MediaError } from "./media-error.ts";

export const SAMPLE_RATE = 16_000;

/**
 * Decodes any audio or video file ffmpeg reads into 16 kHz mono Float32 PCM, yielded in chunks as
 * ffmpeg produces them. Reading is pulled by the consumer, so a slow consumer pauses ffmpeg through
 * the pipe and memory stays bounded whatever the file's length.
 *
 * @example
 * for await (const chunk of pcmChunks("talk.mp4")) diarizer.push(chunk);
 */
export async function* pcmChunks(file: string, signal?: AbortSignal): AsyncGenerator<Float32Array> {
  const args = ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", file, "-vn", "-sn", "-dn"];
  args.push("-f", "s16le", "-acodec", "pcm_s16le", "-ac", "1", "-ar", String(SAMPLE_RATE), "pipe:1");
  const child = spawn(ffmpegPath(), args, { stdio: ["ignore", "pipe", "pipe"], signal });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  // A consumer that stops early (abort, cancel) never reaches the await below: without this the
  // AbortError of the killed child would be an unhandled rejection, which ends the node process.
  exited.catch(() => undefined);
  let odd: number | null = null;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      let bytes = data;
      if (odd !== null) bytes = Buffer.concat([Buffer.from([odd]), data]);
      odd = bytes.length % 2 === 1 ? (bytes[bytes.length - 1] ?? 0) : null;
      const count = Math.floor(bytes.length / 2);
      const chunk = new Float32Array(count);
      for (let i = 0; i < count; i++) chunk[i] = bytes.readInt16LE(i * 2) / 32768;
      if (count > 0) yield chunk;
    }
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  const code = await exited.catch((error: unknown) => {
    if (signal?.aborted) throw signal.reason;
    throw new TaskFailureError(
      "internal_error",
      `cannot run ffmpeg: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  if (code !== 0) {
    if (signal?.aborted) throw signal.reason;
    const reason = stderr.trim().split("\n").slice(-2).join(" ") || `ffmpeg exited with code ${code}`;
    throw new MediaError("media_unreadable", `cannot decode the media as audio: ${reason}`);
  }
}

/** The container's duration in seconds as ffmpeg reports it, or null when unknown. */
export async function probeDuration(file: string): Promise<number | null> {
  const child = spawn(ffmpegPath(), ["-nostdin", "-hide_banner", "-i", file], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    stderr += text;
  });
  await new Promise((resolve) => child.once("close", resolve));
  const match = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  if (!match) return null;
  const [, h = "0", m = "0", s = "0"] = match;
  return Number(h) * 3600 + Number(m) * 60 + Number(s);
}
