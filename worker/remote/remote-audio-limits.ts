import { readWav, type WavRead, wavDurationSec } from "../../protocol/wav.ts";
import { RemoteTierError } from "./remote-failure.ts";
import type { RemoteTranscript } from "./remote-transcript.ts";

/**
 * The checks every remote tier makes on the audio it is handed, as a node's decoder does on its own
 * side: a WAV's header must be sane (protocol/wav.ts), and the audio at most MAX_AUDIO_DURATION_SEC.
 * The length is known before any call from a PCM or float WAV's header; for anything else it is the
 * tier's own answer's `duration`, checked before the result is accepted.
 */

/** What the audio is when a tier may be called with it: a readable WAV, or another format. */
export type CheckedAudio = Extract<WavRead, { kind: "wav" | "not_wav" }>;

/**
 * The audio's WAV reading, after refusing an unusable header (`media_unreadable`) and a WAV longer
 * than `maxDurationSec` (`audio_too_long`).
 *
 * @example checkAudioBeforeCall(bytes, 14_400).kind // "wav" or "not_wav"
 */
export function checkAudioBeforeCall(bytes: Uint8Array, maxDurationSec: number): CheckedAudio {
  const wav = readWav(bytes);
  if (wav.kind === "invalid")
    throw new RemoteTierError({ code: "media_unreadable", message: wav.reason }, false);
  if (wav.kind === "wav" && wav.format.encoding !== "other") {
    const durationSec = wavDurationSec(wav);
    if (durationSec > maxDurationSec) throw tooLong(durationSec, maxDurationSec);
  }
  return wav;
}

/** Refuses (`audio_too_long`) a transcript whose tier says the audio was longer than the cap. */
export function checkAnswerDuration(transcript: RemoteTranscript, maxDurationSec: number): void {
  if (transcript.durationSec !== null && transcript.durationSec > maxDurationSec)
    throw tooLong(transcript.durationSec, maxDurationSec);
}

function tooLong(durationSec: number, maxDurationSec: number): RemoteTierError {
  return new RemoteTierError(
    {
      code: "audio_too_long",
      message: `the audio (${Math.round(durationSec)} s) is longer than the ${maxDurationSec} s limit (MAX_AUDIO_DURATION_SEC)`,
    },
    false,
  );
}
