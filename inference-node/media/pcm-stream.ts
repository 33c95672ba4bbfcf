import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { endianness } from "node:os";
import { TaskFailureError } from "../task-failure.ts";
import { ffmpegPath } from "./ffmpeg-path.ts";
import { MediaError } from "./media-error.ts";
import { directWav } from "./wav-header.ts";

export const SAMPLE_RATE = 16_000;

/** A task's audio as 16 kHz mono Float32 chunks, from one reader of the file. */
export interface PcmSource {
  chunks: AsyncIterable<Float32Array>;
  /**
   * The duration the media declares, in seconds: known at once for a WAV read directly, once ffmpeg
   * has read the container header otherwise (before its first chunk); null while unknown or when
   * the container does not say. For progress only: the decoded samples are the real length.
   */
  readonly durationSec: number | null;
  /** "wav": samples read straight from the file; "ffmpeg": decoded by one ffmpeg process. */
  readonly reader: "wav" | "ffmpeg";
}

/**
 * Opens `file` for decoding: a 16 kHz mono 16-bit WAV is read directly (no process, no
 * conversion), anything else through one ffmpeg process that also reports the duration.
 *
 * @example
 * const source = await openPcm("talk.mp4", signal);
 * for await (const chunk of source.chunks) console.log(chunk.length, source.durationSec);
 */
export async function openPcm(file: string, signal?: AbortSignal): Promise<PcmSource> {
  const wav = await directWav(file).catch(() => null);
  if (wav) {
    return {
      chunks: wavChunks(file, wav.dataOffset, wav.dataBytes, signal),
      durationSec: wav.dataBytes / 2 / SAMPLE_RATE,
      reader: "wav",
    };
  }
  const source: { -readonly [K in keyof PcmSource]: PcmSource[K] } = {
    chunks: pcmChunks(file, signal, (seconds) => {
      source.durationSec = seconds;
    }),
    durationSec: null,
    reader: "ffmpeg",
  };
  return source;
}

/**
 * Decodes any audio or video file ffmpeg reads into 16 kHz mono Float32 PCM, yielded in chunks as
 * ffmpeg produces them. Reading is pulled by the consumer, so a slow consumer pauses ffmpeg through
 * the pipe and memory stays bounded whatever the file's length. `onDuration` gets the duration from
 * ffmpeg's own input report (no separate probe process).
 *
 * @example
 * for await (const chunk of pcmChunks("talk.mp4")) diarizer.push(chunk);
 */
export async function* pcmChunks(
  file: string,
  signal?: AbortSignal,
  onDuration?: (seconds: number) => void,
): AsyncGenerator<Float32Array> {
  // level+info prefixes each line with its level: the input report gives the duration, and only
  // [error]/[fatal] lines make the failure message
  const args = ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "level+info", "-i", file];
  args.push("-vn", "-sn", "-dn", "-f", "s16le", "-acodec", "pcm_s16le", "-ac", "1");
  args.push("-ar", String(SAMPLE_RATE), "pipe:1");
  const child = spawn(ffmpegPath(), args, { stdio: ["ignore", "pipe", "pipe"], signal });
  const report = new FfmpegReport(onDuration);
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => report.push(text));
  child.stderr.once("close", () => report.end());
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
  // A consumer that stops early (abort, cancel) never reaches the await below: without this the
  // AbortError of the killed child would be an unhandled rejection, which ends the node process.
  exited.catch(() => undefined);
  try {
    let first = true;
    for await (const chunk of s16leToFloat(child.stdout as AsyncIterable<Buffer>)) {
      // ffmpeg reports its input before it writes output, but the two pipes are read independently
      if (first) await report.headerSeen;
      first = false;
      yield chunk;
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
    const reason = report.errors() || `ffmpeg exited with code ${code}`;
    throw new MediaError("media_unreadable", `cannot decode the media as audio: ${reason}`);
  }
}

/** The samples of a WAV's data chunk, read straight from the file. */
async function* wavChunks(
  file: string,
  offset: number,
  bytes: number,
  signal?: AbortSignal,
): AsyncGenerator<Float32Array> {
  if (bytes === 0) return;
  const stream = createReadStream(file, { start: offset, end: offset + bytes - 1, highWaterMark: 1 << 17 });
  const onAbort = () => stream.destroy(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw signal.reason;
    yield* s16leToFloat(stream as AsyncIterable<Buffer>);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new MediaError(
      "media_unreadable",
      `cannot read the media file: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stream.destroy();
  }
}

const LITTLE_ENDIAN = endianness() === "LE";

/** s16le bytes to Float32 samples in [-1, 1), carrying an odd byte over to the next chunk. */
async function* s16leToFloat(bytes: AsyncIterable<Buffer>): AsyncGenerator<Float32Array> {
  let odd: number | null = null;
  for await (const data of bytes) {
    let chunk = data;
    if (odd !== null) chunk = Buffer.concat([Buffer.from([odd]), data]);
    odd = chunk.length % 2 === 1 ? (chunk[chunk.length - 1] ?? 0) : null;
    const count = chunk.length >> 1;
    if (count === 0) continue;
    const out = new Float32Array(count);
    if (LITTLE_ENDIAN && chunk.byteOffset % 2 === 0) {
      const ints = new Int16Array(chunk.buffer, chunk.byteOffset, count);
      for (let i = 0; i < count; i++) out[i] = (ints[i] ?? 0) / 32768;
    } else {
      for (let i = 0; i < count; i++) out[i] = chunk.readInt16LE(i * 2) / 32768;
    }
    yield out;
  }
}

/** ffmpeg's stderr with `level+info`: the input duration as it appears, the error lines at the end. */
class FfmpegReport {
  #pending = "";
  #errors: string[] = [];
  #durationSeen = false;
  #headerDone: () => void = () => undefined;
  /** Resolves once the input report is complete (output set up) or stderr has closed. */
  readonly headerSeen = new Promise<void>((resolve) => {
    this.#headerDone = resolve;
  });

  constructor(private readonly onDuration?: (seconds: number) => void) {}

  end(): void {
    this.#headerDone();
  }

  push(text: string): void {
    const lines = (this.#pending + text).split("\n");
    this.#pending = lines.pop() ?? "";
    for (const line of lines) this.#line(line);
  }

  /** The last two error lines, without their level tags. */
  errors(): string {
    if (this.#pending) this.#line(this.#pending);
    this.#pending = "";
    return this.#errors.slice(-2).join(" ");
  }

  #line(line: string): void {
    if (/\[(error|fatal|panic)\] /.test(line)) {
      this.#errors.push(line.replace(/\[(error|fatal|panic)\] /, "").trim());
      if (this.#errors.length > 8) this.#errors.shift();
      return;
    }
    if (line.startsWith("[info] Stream mapping:") || line.startsWith("[info] Output #0")) this.#headerDone();
    if (this.#durationSeen) return;
    const match = /^\[info\]\s+Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(line);
    if (!match) return;
    this.#durationSeen = true;
    const [, h = "0", m = "0", s = "0"] = match;
    this.onDuration?.(Number(h) * 3600 + Number(m) * 60 + Number(s));
  }
}
