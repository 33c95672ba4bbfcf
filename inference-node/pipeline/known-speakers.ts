/**
 * Known speakers of a transcription (the compatible API's known_speaker_names[] with their reference
 * clips, or an async job's enrolled speakers): each clip is read through the lease, decoded by ffmpeg
 * like any media, checked to be 2-10 s of voice (an enrolled clip 2-30 s, protocol/speakers.ts), and
 * kept as a voice reference by the diarizer's own front end (diarize/voice-reference.ts); the diarizer
 * gets the references before it clusters, so it keeps other voices out of their clusters
 * (diarize/reference-anchors.ts), and after diarization each reference is profiled under the call's
 * noise and the clusters that match a profile take its name (diarize/voice-profile.ts): in place of the label for the compatible call (OpenAI's
 * diarized_json shows the name), beside it as `speaker_name` for an enrolled voice.
 * An enrolled voice's reference is computed here, from its stored clip, every time a job names it, so
 * deleting the speaker's clip and row leaves no trace of the voice.
 */
import type { LeaseOf } from "../../protocol/node.ts";
import { ENROLLED_CLIP } from "../../protocol/speakers.ts";
import type { KnownSpeaker } from "../../protocol/transcribe-params.ts";
import type { SpeakerTurn } from "../../protocol/transcription.ts";
import {
  type CallProfiles,
  KNOWN_SPEAKER_THRESHOLD,
  type KnownVoice,
  nameSpeakers,
} from "../diarize/voice-profile.ts";
import { ReferenceRecorder, type VoiceReference } from "../diarize/voice-reference.ts";
import { saveToTempFile } from "../media/download.ts";
import { MediaError } from "../media/media-error.ts";
import { openPcm, SAMPLE_RATE } from "../media/pcm-stream.ts";
import { TaskFailureError } from "../task-failure.ts";
import { SourceMissingError } from "../worker-client.ts";
import { type MediaSourceOptions, withinDownloadLimit } from "./fetch-media.ts";

/**
 * OpenAI's rule for a reference clip: 2 to 10 seconds, a file of at most 4 MiB (the Worker's limit on
 * its data URL is 2.5 MiB); an enrolled clip's is ENROLLED_CLIP's.
 */
const REFERENCE = { minSec: 2, maxSec: 10, maxBytes: 4 * 1024 * 1024 };
/** Slack for what a container declares against what ffmpeg decodes (a frame or two of padding). */
const DURATION_SLACK_SEC = 0.25;

/** A voice to name clusters after, and whether it is enrolled (its name goes beside the label). */
export interface NamedVoice extends KnownVoice {
  enrolled: boolean;
}

/** How a known speaker is named in a failure, and the limits its clip is held to. */
function clipRules(speaker: KnownSpeaker, index: number) {
  return speaker.enrolled
    ? { where: `enrolled speaker "${speaker.name}"`, limits: ENROLLED_CLIP }
    : { where: `known_speaker_references[${index}]`, limits: REFERENCE };
}

/**
 * The voice references of a lease's known speakers, in order; [] when it names none. A clip that cannot
 * be decoded, is not 2-10 s long or holds no voice fails the task (`speaker_reference_invalid`).
 *
 * @example const voices = await loadKnownVoices(lease, { ...deps.media, signal });
 */
export async function loadKnownVoices(
  lease: LeaseOf<"transcribe">,
  options: MediaSourceOptions,
): Promise<NamedVoice[]> {
  const known = lease.params.known_speakers ?? [];
  const voices: NamedVoice[] = [];
  for (const [index, speaker] of known.entries()) {
    const rules = clipRules(speaker, index);
    const path = `/internal/v1/leases/${lease.lease_id}/speakers/${index}`;
    const file = await withinDownloadLimit(options, async (signal) => {
      const response = await options.client.source(path, lease.lease_id, signal).catch((error) => {
        if (!(error instanceof SourceMissingError)) throw error;
        throw new TaskFailureError(
          "speaker_reference_invalid",
          `${rules.where} was deleted after this job was queued`,
        );
      });
      return saveToTempFile(response, rules.limits.maxBytes, {
        dir: options.tempDir,
        signal,
        onData: options.onData,
        minRate: options.minRate,
      });
    });
    try {
      const reference = await clipReference(file.path, rules, options.signal);
      voices.push({ name: speaker.name, reference, enrolled: speaker.enrolled === true });
    } finally {
      await file.remove();
    }
  }
  return voices;
}

async function clipReference(
  path: string,
  { where, limits }: ReturnType<typeof clipRules>,
  signal: AbortSignal,
): Promise<VoiceReference> {
  const recorder = new ReferenceRecorder();
  let samples = 0;
  try {
    const source = await openPcm(path, { signal, maxDurationSec: limits.maxSec + DURATION_SLACK_SEC });
    for await (const chunk of source.chunks) {
      samples += chunk.length;
      recorder.push(chunk);
    }
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    throw new TaskFailureError(
      "speaker_reference_invalid",
      `${where} could not be decoded: ${error.message}`,
    );
  }
  const seconds = samples / SAMPLE_RATE;
  if (seconds < limits.minSec - DURATION_SLACK_SEC || seconds > limits.maxSec + DURATION_SLACK_SEC) {
    throw new TaskFailureError(
      "speaker_reference_invalid",
      `${where} is ${seconds.toFixed(1)} s long: a reference clip must be ${limits.minSec}-${limits.maxSec} s`,
    );
  }
  const reference = recorder.finish();
  if (!reference) throw new TaskFailureError("speaker_reference_invalid", `${where} holds no voice`);
  return reference;
}

/**
 * `turns` with every cluster that matches a known voice named after it: renamed for a compatible
 * call's voice, given `speaker_name` beside its label for an enrolled one; the rest stay as they are.
 *
 * @example nameTurns(turns, speech.speakerProfiles(), voices) // [{ start, end, speaker: "agent" }, ...]
 * @example nameTurns(turns, profiles, enrolled) // [{ start, end, speaker: "SPEAKER_00", speaker_name: "agent" }, ...]
 */
export function nameTurns(
  turns: SpeakerTurn[],
  profiles: CallProfiles,
  voices: readonly NamedVoice[],
): SpeakerTurn[] {
  if (voices.length === 0) return turns;
  const names = nameSpeakers(profiles, voices, KNOWN_SPEAKER_THRESHOLD);
  const enrolled = new Set(voices.filter((voice) => voice.enrolled).map((voice) => voice.name));
  return turns.map((turn) => {
    const name = names.get(turn.speaker);
    if (name === undefined) return turn;
    return enrolled.has(name) ? { ...turn, speaker_name: name } : { ...turn, speaker: name };
  });
}
