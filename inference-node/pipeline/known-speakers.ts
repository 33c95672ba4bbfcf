/**
 * Known speakers of a transcription (the compatible API's known_speaker_names[] with their reference
 * clips): each clip is read through the lease, decoded by ffmpeg like any media, checked to be 2-10 s
 * of voice, and reduced to a voice profile by the diarizer's own front end; after diarization the
 * clusters that match a profile take its name (diarize/voice-profile.ts).
 */
import type { LeaseOf } from "../../protocol/node.ts";
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import { Diarizer } from "../diarize/diarizer.ts";
import type { Evidence } from "../diarize/evidence.ts";
import { KNOWN_SPEAKER_THRESHOLD, type KnownVoice, nameSpeakers } from "../diarize/voice-profile.ts";
import { saveToTempFile } from "../media/download.ts";
import { MediaError } from "../media/media-error.ts";
import { openPcm, SAMPLE_RATE } from "../media/pcm-stream.ts";
import { TaskFailureError } from "../task-failure.ts";
import type { MediaSourceOptions } from "./fetch-media.ts";

/** OpenAI's rule for a reference clip: 2 to 10 seconds. */
const MIN_REFERENCE_SEC = 2;
const MAX_REFERENCE_SEC = 10;
/** Slack for what a container declares against what ffmpeg decodes (a frame or two of padding). */
const DURATION_SLACK_SEC = 0.25;
/** A reference clip's file is at most this large (the Worker's limit on its data URL is 2.5 MiB). */
const MAX_REFERENCE_BYTES = 4 * 1024 * 1024;

/**
 * The voice profiles of a lease's known speakers, in order; [] when it names none. A clip that cannot
 * be decoded, is not 2-10 s long or holds no voice fails the task (`speaker_reference_invalid`).
 *
 * @example const voices = await loadKnownVoices(lease, { ...deps.media, signal });
 */
export async function loadKnownVoices(
  lease: LeaseOf<"transcribe">,
  options: MediaSourceOptions,
): Promise<KnownVoice[]> {
  const known = lease.params.known_speakers ?? [];
  const voices: KnownVoice[] = [];
  for (const [index, speaker] of known.entries()) {
    const path = `/internal/v1/leases/${lease.lease_id}/speakers/${index}`;
    const response = await options.client.source(path, lease.lease_id, options.signal);
    const file = await saveToTempFile(response, MAX_REFERENCE_BYTES, {
      dir: options.tempDir,
      signal: options.signal,
    });
    try {
      voices.push({ name: speaker.name, profile: await clipProfile(file.path, index, options.signal) });
    } finally {
      await file.remove();
    }
  }
  return voices;
}

async function clipProfile(path: string, index: number, signal: AbortSignal): Promise<Evidence> {
  const where = `known_speaker_references[${index}]`;
  const diarizer = new Diarizer();
  let samples = 0;
  try {
    const source = await openPcm(path, { signal, maxDurationSec: MAX_REFERENCE_SEC + DURATION_SLACK_SEC });
    for await (const chunk of source.chunks) {
      samples += chunk.length;
      diarizer.push(chunk);
    }
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    throw new TaskFailureError(
      "speaker_reference_invalid",
      `${where} could not be decoded: ${error.message}`,
    );
  }
  const seconds = samples / SAMPLE_RATE;
  if (seconds < MIN_REFERENCE_SEC - DURATION_SLACK_SEC || seconds > MAX_REFERENCE_SEC + DURATION_SLACK_SEC) {
    throw new TaskFailureError(
      "speaker_reference_invalid",
      `${where} is ${seconds.toFixed(1)} s long: a reference clip must be ${MIN_REFERENCE_SEC}-${MAX_REFERENCE_SEC} s`,
    );
  }
  const profile = diarizer.voiceProfile();
  if (!profile) throw new TaskFailureError("speaker_reference_invalid", `${where} holds no voice`);
  return profile;
}

/**
 * `turns` with every cluster that matches a known voice renamed after it; the rest keep their labels.
 *
 * @example nameTurns(turns, speech.speakerProfiles(), voices) // [{ start, end, speaker: "agent" }, ...]
 */
export function nameTurns(
  turns: SpeakerTurn[],
  profiles: ReadonlyMap<string, Evidence>,
  voices: readonly KnownVoice[],
): SpeakerTurn[] {
  if (voices.length === 0) return turns;
  const names = nameSpeakers(profiles, voices, KNOWN_SPEAKER_THRESHOLD);
  return turns.map((turn) => ({ ...turn, speaker: names.get(turn.speaker) ?? turn.speaker }));
}
