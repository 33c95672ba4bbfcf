import { z } from "zod";
import { normalizeLanguage } from "../../protocol/languages.ts";
import type { CheckedAudio } from "./remote-audio-limits.ts";
import { RemoteTierError, remoteAnswerFailure, remoteGarbled, remoteUnreachable } from "./remote-failure.ts";
import type { RemoteAsk, RemoteAudio, RemoteTranscript } from "./remote-transcript.ts";
import { cutPieces, planPieces } from "./wav-chunks.ts";

/** The part of the Workers AI binding this tier uses (tests pass a fake that checks the request). */
export interface SpeechModelBinding {
  run(model: string, input: WorkersAiWhisperInput): Promise<unknown>;
}

/** The documented input of @cf/openai/whisper-large-v3-turbo that we send. */
export interface WorkersAiWhisperInput {
  /** The audio file, base64. */
  audio: string;
  task: "transcribe" | "translate";
  language?: string;
  initial_prompt?: string;
  vad_filter: boolean;
}

/**
 * Largest audio sent in one call. The model takes a whole file as base64 in a JSON body; we keep each
 * call under 10 MiB of audio (≈ 13.4 MiB as base64), which a 16 kHz mono 16-bit WAV reaches at ~5.5 min.
 */
export const WORKERS_AI_MAX_PIECE_BYTES = 10 * 1024 * 1024;
/** A WAV is cut into pieces of at most this long (and WORKERS_AI_MAX_PIECE_BYTES), each heard with… */
export const WORKERS_AI_PIECE_SEC = 300;
/** …this much of the audio before it, so a word on a boundary is heard whole once. */
export const WORKERS_AI_OVERLAP_SEC = 1;

const Output = z.object({
  text: z.string(),
  transcription_info: z
    .object({ language: z.string().optional(), duration: z.number().optional() })
    .partial()
    .optional(),
  segments: z
    .array(
      z
        .object({
          start: z.number(),
          end: z.number(),
          text: z.string(),
          no_speech_prob: z.number(),
          avg_logprob: z.number(),
        })
        .partial(),
    )
    .default([]),
});

/**
 * Transcribes with Workers AI's whisper: a PCM WAV of any length is cut into pieces (with a small
 * overlap), sent one after another as each is built, and the pieces' segments stitched back on one
 * timeline; another format is sent whole when it fits one call, and refused (`media_too_large`,
 * permanent) otherwise, with how to fix it. `audio.checked` is its header, already checked
 * (remote-audio-limits.ts).
 *
 * @example await transcribeWithWorkersAi(env.AI, "@cf/openai/whisper-large-v3-turbo", audio, ask, signal, 300, onPiece)
 */
export async function transcribeWithWorkersAi(
  ai: SpeechModelBinding,
  model: string,
  audio: RemoteAudio & { checked: CheckedAudio },
  ask: RemoteAsk,
  signal: AbortSignal,
  timeoutSec: number,
  onPiece: (done: number, total: number) => Promise<void>,
): Promise<RemoteTranscript> {
  const { count, pieces } = piecesOf(audio);
  const segments: RemoteTranscript["segments"] = [];
  const texts: string[] = [];
  let language = ask.language ?? "";
  let durationSec = 0;
  let done = 0;
  for (const piece of pieces) {
    const output = await runOnce(ai, model, piece.wav, ask, signal, timeoutSec);
    const kept = output.segments.flatMap((s) => {
      if (s.start === undefined || s.end === undefined || s.text === undefined) return [];
      const start = s.start + piece.offsetSec;
      const end = s.end + piece.offsetSec;
      const middle = (start + end) / 2;
      const owned = middle >= piece.ownedFrom && middle < piece.ownedTo;
      return owned
        ? [{ start, end, text: s.text, noSpeechProb: s.no_speech_prob, avgLogprob: s.avg_logprob }]
        : [];
    });
    segments.push(...kept);
    texts.push(count === 1 ? output.text : kept.map((s) => s.text.trim()).join(" "));
    const detected = normalizeLanguage(output.transcription_info?.language);
    if (!language && detected.kind === "language") language = detected.code;
    durationSec = Math.max(durationSec, piece.ownedTo, output.transcription_info?.duration ?? 0);
    await onPiece(++done, count);
  }
  return { text: texts.join(" ").trim(), language, durationSec, segments, hasTimestamps: true };
}

interface Piece {
  wav: Uint8Array;
  offsetSec: number;
  ownedFrom: number;
  ownedTo: number;
}

/** How many calls the audio takes, and its pieces, built one at a time as the loop asks. */
function piecesOf(audio: RemoteAudio & { checked: CheckedAudio }): {
  count: number;
  pieces: Iterable<Piece>;
} {
  const wav = audio.checked;
  if (wav.kind === "wav" && wav.format.encoding === "pcm") {
    const data = audio.bytes.subarray(wav.dataOffset, wav.dataOffset + wav.dataBytes);
    const plan = planPieces(wav.format, wav.dataBytes, {
      pieceSec: WORKERS_AI_PIECE_SEC,
      overlapSec: WORKERS_AI_OVERLAP_SEC,
      maxPieceBytes: WORKERS_AI_MAX_PIECE_BYTES,
    });
    return { count: plan.count, pieces: cutPieces(plan, data) };
  }
  const bytes = audio.bytes;
  if (bytes.byteLength > WORKERS_AI_MAX_PIECE_BYTES) {
    throw new RemoteTierError(
      {
        code: "media_too_large",
        message:
          `the Workers AI tier sends compressed audio whole and takes at most ${WORKERS_AI_MAX_PIECE_BYTES / 1024 / 1024} MiB of it ` +
          `(this file: ${(bytes.byteLength / 1024 / 1024).toFixed(1)} MiB). Fix: send a 16-bit PCM WAV (any length; it is split), ` +
          "or a shorter or lower-bitrate file",
      },
      false,
    );
  }
  return {
    count: 1,
    pieces: [{ wav: bytes, offsetSec: 0, ownedFrom: 0, ownedTo: Number.POSITIVE_INFINITY }],
  };
}

async function runOnce(
  ai: SpeechModelBinding,
  model: string,
  bytes: Uint8Array,
  ask: RemoteAsk,
  signal: AbortSignal,
  timeoutSec: number,
): Promise<z.infer<typeof Output>> {
  const input: WorkersAiWhisperInput = {
    audio: base64(bytes),
    task: ask.task,
    vad_filter: true,
    ...(ask.language ? { language: ask.language } : {}),
    ...(ask.prompt ? { initial_prompt: ask.prompt } : {}),
  };
  let answer: unknown;
  try {
    // The binding takes no signal: the call is raced against the task's cancel and the entry's timeout.
    const stop = AbortSignal.any([signal, AbortSignal.timeout(timeoutSec * 1000)]);
    answer = await Promise.race([ai.run(model, input), abortion(stop)]);
  } catch (cause) {
    if (signal.aborted) throw cause;
    throw workersAiFailure(cause, timeoutSec);
  }
  const parsed = Output.safeParse(answer);
  if (!parsed.success) throw remoteGarbled("Workers AI", "sent an answer without text");
  return parsed.data;
}

/**
 * The binding throws an Error whose message carries the failure; an input error (`AiError: 5006 …` style,
 * "invalid input", bad audio) is permanent, everything else (capacity, 429, 5xx, timeouts) transient.
 */
function workersAiFailure(cause: unknown, timeoutSec: number): RemoteTierError {
  const text = cause instanceof Error ? cause.message : String(cause);
  if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError")) {
    return remoteUnreachable("Workers AI", cause, timeoutSec);
  }
  const detail = text.slice(0, 300);
  if (/invalid|malformed|unsupported|could not (?:decode|process) audio|bad input/i.test(text)) {
    return remoteAnswerFailure("media_unreadable", false, "Workers AI", { detail });
  }
  return remoteAnswerFailure("decoder_error", true, "Workers AI", { detail });
}

/** Rejects with the signal's reason once it aborts. */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** Base64 of bytes, built in slices so a long file never makes one huge argument list. */
function base64(bytes: Uint8Array): string {
  const SLICE = 0x8000;
  let binary = "";
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    binary += String.fromCharCode(...bytes.subarray(at, at + SLICE));
  }
  return btoa(binary);
}
