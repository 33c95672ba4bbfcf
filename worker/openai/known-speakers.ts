import { quoted } from "../../protocol/quoted.ts";
import { MAX_KNOWN_SPEAKERS_PER_JOB } from "../../protocol/speakers.ts";
import type { KnownSpeaker } from "../../protocol/transcribe-params.ts";
import { ApiError } from "../errors.ts";
import { knownSpeakerPrefix } from "../ingest/object-keys.ts";
import type { LargeFields } from "../ingest/streamed-form.ts";
import { jobSpeakers } from "../speakers/job-speakers.ts";
import { OpenAIError } from "./errors.ts";

/**
 * OpenAI's known speakers on the compatible transcription endpoint: `known_speaker_names[]` with one
 * reference clip each in `known_speaker_references[]` (a data URL). The worker checks what it can
 * without decoding audio (counts, format, the data URL's shape and base64) and stores each clip in R2
 * beside the upload; the node decodes them (2-10 s each, checked there) and names the diarizer's
 * clusters after them.
 */

/** OpenAI's limit on known speakers per request. */
export const MAX_KNOWN_SPEAKERS = 4;

/**
 * The reference fields' form limits: 2.5 MiB per data URL holds a 10 s clip of 16-bit stereo 44.1 kHz
 * WAV (1.76 MB, 2.35 MB in base64), the largest clip OpenAI's 2-10 s rule lets a plain recording be;
 * 8 MiB for all of them bounds what one request holds in the isolate's memory (the strings and their
 * decoded bytes, about 14 MiB at most) well under the 128 MB limit.
 */
export const REFERENCE_FIELDS: LargeFields = {
  names: ["known_speaker_references[]", "known_speaker_references"],
  maxBytes: 2.5 * 1024 * 1024,
  maxTotalBytes: 8 * 1024 * 1024,
};

/** A checked reference clip, decoded from its data URL. */
export interface ReferenceClip {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

const DATA_URL = /^data:((?:audio|video)\/[a-z0-9.+-]+)((?:;[a-z0-9-]+=[^;,]*)*);base64,/i;

const refuse = (param: string, message: string, openaiCode = "invalid_value") =>
  new OpenAIError("bad_request", message, { param, openaiCode });

/**
 * The reference clips of a transcription form, or [] when none were sent. Throws OpenAI's 400 naming
 * the field at fault.
 *
 * @example parseKnownSpeakers(["agent"], ["data:audio/wav;base64,UklGR..."], "diarized_json") // [{ name: "agent", ... }]
 */
export function parseKnownSpeakers(names: string[], references: string[], format: string): ReferenceClip[] {
  if (names.length === 0 && references.length === 0) return [];
  if (format !== "diarized_json") {
    throw refuse(
      "known_speaker_names",
      `known speakers need response_format diarized_json (got ${format}): send response_format=diarized_json ` +
        "or leave known_speaker_names and known_speaker_references out",
      "unsupported_value",
    );
  }
  if (names.length !== references.length) {
    throw refuse(
      "known_speaker_references",
      `known_speaker_names has ${names.length} entries and known_speaker_references ${references.length}: ` +
        "send one reference clip per name, in the same order",
    );
  }
  if (names.length > MAX_KNOWN_SPEAKERS) {
    throw refuse(
      "known_speaker_names",
      `at most ${MAX_KNOWN_SPEAKERS} known speakers are supported (got ${names.length})`,
    );
  }
  const trimmed = names.map((name) => name.trim());
  const repeated = trimmed.find((name, i) => trimmed.indexOf(name) !== i);
  if (repeated !== undefined)
    throw refuse(
      "known_speaker_names",
      `known_speaker_names repeats ${quoted(repeated)}: give each voice its own name`,
    );
  const label = trimmed.find((name) => name === "" || /^SPEAKER_\d+$/.test(name));
  if (label !== undefined) {
    throw refuse(
      "known_speaker_names",
      `${quoted(label)} cannot name a speaker: it is empty or one of the diarizer's own SPEAKER_nn labels`,
    );
  }
  return trimmed.map((name, i) => ({ name, ...decodeReference(references[i] ?? "", i) }));
}

function decodeReference(url: string, index: number): Omit<ReferenceClip, "name"> {
  return decodeAudioDataUrl(url, `known_speaker_references[${index}]`, "known_speaker_references");
}

/**
 * An audio (or video) data URL's type and bytes; OpenAI's 400 naming `param` when it is not one, is
 * not base64 or is empty (`where` names the value in the message).
 *
 * @example decodeAudioDataUrl("data:audio/wav;base64,UklGR...", "reference", "reference").contentType // "audio/wav"
 */
export function decodeAudioDataUrl(url: string, where: string, param: string): Omit<ReferenceClip, "name"> {
  const match = DATA_URL.exec(url);
  if (!match) {
    throw refuse(
      param,
      `${where} is not an audio data URL: send data:audio/wav;base64,... (any container the file field takes)`,
    );
  }
  let binary: string;
  try {
    binary = atob(url.slice(match[0].length));
  } catch {
    throw refuse(param, `${where} is not valid base64`);
  }
  if (binary.length === 0) throw refuse(param, `${where} is empty`);
  return {
    contentType: (match[1] ?? "").toLowerCase(),
    bytes: Uint8Array.from(binary, (c) => c.charCodeAt(0)),
  };
}

/** Every key `storeKnownSpeakers` may have written for an upload (to delete them on a failed submit). */
export function knownSpeakerKeys(uploadKey: string): string[] {
  return Array.from({ length: MAX_KNOWN_SPEAKERS }, (_, i) => `${knownSpeakerPrefix(uploadKey)}${i}`);
}

/**
 * Stores the clips beside the upload they go with (object-keys.ts: deleted with it); returns what the
 * task's params record.
 *
 * @example const known = await storeKnownSpeakers(env, form.objectKey, clips); // [{ name, object_key }]
 */
export async function storeKnownSpeakers(
  env: Env,
  uploadKey: string,
  clips: readonly ReferenceClip[],
): Promise<KnownSpeaker[]> {
  return Promise.all(
    clips.map(async (clip, i) => {
      const objectKey = `${knownSpeakerPrefix(uploadKey)}${i}`;
      await env.MEDIA.put(objectKey, clip.bytes, { httpMetadata: { contentType: clip.contentType } });
      return { name: clip.name, object_key: objectKey };
    }),
  );
}

/**
 * The Voxedge extension `known_speakers` on the compatible endpoint: the key's enrolled voices it names,
 * after the request's own reference clips (`references`); none when it is absent. OpenAI's 400 naming
 * `known_speakers` for a name not enrolled, one a reference already takes, or more than
 * MAX_KNOWN_SPEAKERS_PER_JOB voices in all.
 *
 * @example await enrolledKnownSpeakers(env, "key_1", "agent", []) // [{ name: "agent", object_key: "speakers/key_1/spk_…", enrolled: true }]
 */
export async function enrolledKnownSpeakers(
  env: Env,
  ownerKeyId: string,
  value: string | undefined,
  references: readonly ReferenceClip[],
): Promise<KnownSpeaker[]> {
  const refuse = (message: string) =>
    new OpenAIError("bad_request", message, { param: "known_speakers", openaiCode: "invalid_value" });
  let enrolled: KnownSpeaker[];
  try {
    enrolled = (await jobSpeakers(env, ownerKeyId, value)) ?? [];
  } catch (error) {
    if (error instanceof ApiError && error.code === "bad_request") throw refuse(error.message);
    throw error;
  }
  const twice = enrolled.find((speaker) => references.some((clip) => clip.name === speaker.name));
  if (twice)
    throw refuse(`${quoted(twice.name)} is both in known_speaker_names and in known_speakers: name it once`);
  if (enrolled.length + references.length > MAX_KNOWN_SPEAKERS_PER_JOB) {
    throw refuse(
      `at most ${MAX_KNOWN_SPEAKERS_PER_JOB} known speakers in all (got ${enrolled.length + references.length})`,
    );
  }
  return enrolled;
}
