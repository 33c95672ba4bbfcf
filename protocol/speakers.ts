/**
 * Enrolled speakers (`/v1/speakers`): the rules the Worker checks on enrolment and on a job's
 * `known_speakers`, and the node on the clip when a job uses it.
 */

/** An enrolled voice's reference clip: 2 to 30 seconds of audio, at most 8 MiB of file. */
export const ENROLLED_CLIP = {
  minSec: 2,
  maxSec: 30,
  /** 30 s of 16-bit stereo 48 kHz WAV is 5.8 MB; any compressed container is far smaller. */
  maxBytes: 8 * 1024 * 1024,
} as const;

/** Longest speaker name, in characters. */
export const MAX_SPEAKER_NAME_CHARS = 64;

/**
 * Enrolled voices one async job may name (`known_speakers`, `all` included): each clip is decoded and
 * profiled when the job runs, and every extra voice is one more chance of a wrong name.
 */
export const MAX_KNOWN_SPEAKERS_PER_JOB = 16;

/** The `known_speakers` value that names every voice the key has enrolled. */
export const ALL_SPEAKERS = "all";

/**
 * Why `name` cannot name an enrolled speaker, or null when it can: it must be 1-64 characters once
 * trimmed, hold no comma (known_speakers is a comma-separated list), and be neither `all` nor one of
 * the diarizer's own `SPEAKER_nn` labels.
 *
 * @example speakerNameProblem("SPEAKER_01") // "SPEAKER_nn is the diarizer's own label"
 */
export function speakerNameProblem(name: string): string | null {
  if (name.length === 0) return "it is empty";
  if (name.length > MAX_SPEAKER_NAME_CHARS) return `it is longer than ${MAX_SPEAKER_NAME_CHARS} characters`;
  if (name.includes(",")) return "it holds a comma (known_speakers is a comma-separated list)";
  if (name.toLowerCase() === ALL_SPEAKERS) return `"${ALL_SPEAKERS}" names every enrolled voice`;
  if (/^SPEAKER_\d+$/.test(name)) return "SPEAKER_nn is the diarizer's own label";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return "it holds a control character";
  return null;
}
