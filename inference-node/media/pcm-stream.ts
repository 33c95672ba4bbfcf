import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { endianness } from "node:os";
import { DEFAULT_MAX_AUDIO_DURATION_SEC } from "../../protocol/node.ts";
import { TaskFailureError } from "../task-failure.ts";
import {
  ALLOWED_DEMUXERS,
  indirectionIn,
  isAllowedDemuxer,
  UNTRUSTED_INPUT_ARGS,
} from "./container-policy.ts";
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
   * the container does not say. For progress and the duration cap: the decoded samples are the
   * real length.
   */
  readonly durationSec: number | null;
  /** "wav": samples read straight from the file; "ffmpeg": decoded by one ffmpeg process. */
  readonly reader: "wav" | "ffmpeg";
}

export interface PcmOptions {
  signal?: AbortSignal;
  /** Longer media fails with `audio_too_long` (default DEFAULT_MAX_AUDIO_DURATION_SEC, 4 h). */
  maxDurationSec?: number;
}

/**
 * Opens an untrusted `file` for decoding. A playlist, manifest, concat list or URL reference is
 * refused at once (`unsupported_media`); a 16 kHz mono 16-bit WAV is read directly (no process, no
 * conversion); anything else goes through one pinned ffmpeg process (pcmChunks). Media longer than
 * the cap fails with `audio_too_long` before any of it is yielded.
 *
 * @example
 * const source = await openPcm("talk.mp4", { signal, maxDurationSec: 14_400 });
 * for await (const chunk of source.chunks) console.log(chunk.length, source.durationSec);
 */
export async function openPcm(file: string, options: PcmOptions = {}): Promise<PcmSource> {
  const { signal } = options;
  const maxDurationSec = options.maxDurationSec ?? DEFAULT_MAX_AUDIO_DURATION_SEC;
  const indirection = await indirectionIn(file).catch(() => null);
  if (indirection) {
    throw new MediaError(
      "unsupported_media",
      `the media is ${indirection}, not an audio or video file: media that refers to other files or URLs is not accepted`,
    );
  }
  const wav = await directWav(file).catch(() => null);
  if (wav) {
    const durationSec = wav.dataBytes / 2 / SAMPLE_RATE;
    if (durationSec > maxDurationSec) throw tooLong(durationSec, maxDurationSec);
    return { chunks: wavChunks(file, wav.dataOffset, wav.dataBytes, signal), durationSec, reader: "wav" };
  }
  const source: { -readonly [K in keyof PcmSource]: PcmSource[K] } = {
    chunks: pcmChunks(file, {
      signal,
      maxDurationSec,
      onDuration: (seconds) => {
        source.durationSec = seconds;
      },
    }),
    durationSec: null,
    reader: "ffmpeg",
  };
  return source;
}

export interface DecodeOptions extends PcmOptions {
  /** Called with the duration from ffmpeg's input report, before the first chunk. */
  onDuration?: (seconds: number) => void;
}

/**
 * Decodes an audio or video file into 16 kHz mono Float32 PCM, yielded in chunks as one pinned
 * ffmpeg process (UNTRUSTED_INPUT_ARGS) produces them. Reading is pulled by the consumer, so a slow
 * consumer pauses ffmpeg through the pipe and memory stays bounded whatever the file's length.
 * Before the first chunk, ffmpeg's input report is checked: the container must be on the
 * allow-list whatever the ffmpeg build enforced (`unsupported_media`), and a declared duration over
 * the cap ends the run (`audio_too_long`); without one, decoding stops once the cap is passed.
 *
 * @example
 * for await (const chunk of pcmChunks("talk.mp4")) diarizer.push(chunk);
 */
export async function* pcmChunks(file: string, options: DecodeOptions = {}): AsyncGenerator<Float32Array> {
  const { signal } = options;
  const maxDurationSec = options.maxDurationSec ?? DEFAULT_MAX_AUDIO_DURATION_SEC;
  // level+info prefixes each line with its level: the input report gives the container and the
  // duration, and only [error]/[fatal] lines make the failure message
  const args = ["-nostdin", "-hide_banner", "-nostats", "-loglevel", "level+info"];
  args.push(...UNTRUSTED_INPUT_ARGS, "-i", file);
  args.push("-vn", "-sn", "-dn", "-f", "s16le", "-acodec", "pcm_s16le", "-ac", "1");
  args.push("-ar", String(SAMPLE_RATE), "pipe:1");
  const child = spawn(ffmpegPath(), args, { stdio: ["ignore", "pipe", "pipe"], signal });
  const report = new FfmpegReport(options.onDuration);
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
  const maxSamples = maxDurationSec * SAMPLE_RATE;
  let samples = 0;
  let checked = false;
  try {
    for await (const chunk of s16leToFloat(child.stdout as AsyncIterable<Buffer>)) {
      if (!checked) {
        // ffmpeg reports its input before it writes output, but the two pipes are read independently
        await report.headerSeen;
        checkInput(report, maxDurationSec);
        checked = true;
      }
      samples += chunk.length;
      if (samples > maxSamples) throw tooLong(null, maxDurationSec);
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
    const refused = report.refusedDemuxer();
    if (refused) throw notAllowed(refused);
    // ffmpeg names its input; the owner learns the cause, not where the node keeps their file
    const reason =
      report.errors().replaceAll(`${file}: `, "").replaceAll(file, "the file") ||
      `ffmpeg exited with code ${code}`;
    throw new MediaError("media_unreadable", `cannot decode the media as audio: ${reason}`);
  }
  if (!checked) checkInput(report, maxDurationSec);
}

/** The input report's verdict: the container on our own allow-list, the duration under the cap. */
function checkInput(report: FfmpegReport, maxDurationSec: number): void {
  const demuxer = report.demuxer();
  if (demuxer === null || !isAllowedDemuxer(demuxer)) throw notAllowed(demuxer ?? "unnamed");
  const durationSec = report.durationSec();
  if (durationSec !== null && durationSec > maxDurationSec) throw tooLong(durationSec, maxDurationSec);
}

function notAllowed(demuxer: string): MediaError {
  return new MediaError(
    "unsupported_media",
    `the media's container (${demuxer}) is not an allowed audio or video format; allowed: ${ALLOWED_DEMUXERS.join(", ")}`,
  );
}

function tooLong(durationSec: number | null, maxDurationSec: number): MediaError {
  const length = durationSec === null ? "" : ` (${clock(durationSec)}, ${Math.round(durationSec)} s)`;
  return new MediaError(
    "audio_too_long",
    `the audio${length} is longer than the ${maxDurationSec} s limit (MAX_AUDIO_DURATION_SEC)`,
  );
}

/** 36000 → "10:00:00". */
function clock(seconds: number): string {
  const whole = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(Math.floor(whole / 3600))}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)}`;
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

/**
 * ffmpeg's stderr with `level+info`: the input's container and duration as they appear, a demuxer
 * the format whitelist refused, the error lines at the end.
 */
class FfmpegReport {
  #pending = "";
  #errors: string[] = [];
  #demuxer: string | null = null;
  #durationSec: number | null = null;
  #durationSeen = false;
  #refused: string | null = null;
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

  /** The container ffmpeg opened the input with ("mov,mp4,m4a,3gp,3g2,mj2"), once reported. */
  demuxer(): string | null {
    return this.#demuxer;
  }

  /** The declared duration, once reported; null when the container gives none. */
  durationSec(): number | null {
    return this.#durationSec;
  }

  /** The demuxer ffmpeg guessed and its format whitelist refused, if it did. */
  refusedDemuxer(): string | null {
    if (this.#pending) this.#line(this.#pending);
    this.#pending = "";
    return this.#refused;
  }

  /** The last two error lines, without their level tags. */
  errors(): string {
    if (this.#pending) this.#line(this.#pending);
    this.#pending = "";
    return this.#errors.slice(-2).join(" ");
  }

  #line(line: string): void {
    // the log context names the demuxer: "[hls @ 0x55d…] [error] Format not on whitelist '…'"
    const refused = /^\[([\w,]+) @ 0x[0-9a-f]+\] \[error\] Format not on whitelist/.exec(line);
    if (refused) this.#refused = refused[1] ?? "unknown";
    const input = /^\[info\] Input #0, (.+), from '/.exec(line);
    if (input && this.#demuxer === null) this.#demuxer = input[1] ?? null;
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
    this.#durationSec = Number(h) * 3600 + Number(m) * 60 + Number(s);
    this.onDuration?.(this.#durationSec);
  }
}
