import { ENROLLED_CLIP } from "../../protocol/speakers.ts";
import { readWav, wavDurationSec } from "../../protocol/wav.ts";
import { OpenAIError } from "../openai/errors.ts";

/**
 * The checks an enrolment makes on a reference clip without decoding it: the file is at most
 * ENROLLED_CLIP.maxBytes and opens like an audio (or video) container by its first bytes, whatever
 * type the client declared; a PCM or float WAV's length is read from its header and must be 2-30 s.
 * Other containers' length is checked by the node when a job first decodes the clip (it fails that
 * job with `speaker_reference_invalid`, naming the voice).
 */

/** A clip that passed: its bytes, the container's type and, for a WAV, its length. */
export interface CheckedClip {
  bytes: Uint8Array;
  contentType: string;
  durationSec: number | null;
}

/** Container signatures: [offset, ASCII or bytes, the type it is stored as]. */
const SIGNATURES: readonly (readonly [number, string | readonly number[], string])[] = [
  [0, "RIFF", "audio/wav"], // WAVE is checked by readWav
  [0, "ID3", "audio/mpeg"],
  [0, "OggS", "audio/ogg"],
  [0, "fLaC", "audio/flac"],
  [4, "ftyp", "audio/mp4"],
  [0, [0x1a, 0x45, 0xdf, 0xa3], "audio/webm"],
  [0, "#!AMR", "audio/amr"],
  [0, "FORM", "audio/aiff"],
  [0, "caff", "audio/x-caf"],
  [0, [0x30, 0x26, 0xb2, 0x75, 0x8e, 0x66, 0xcf, 0x11], "audio/x-ms-wma"],
];

const refuse = (param: string, message: string) =>
  new OpenAIError("bad_request", message, { param, openaiCode: "invalid_value" });

function startsWith(bytes: Uint8Array, offset: number, signature: string | readonly number[]): boolean {
  const expected = typeof signature === "string" ? [...signature].map((c) => c.charCodeAt(0)) : signature;
  return expected.every((byte, i) => bytes[offset + i] === byte);
}

/** The container's type by its first bytes; an MPEG audio or ADTS frame sync counts; null for none. */
function containerType(bytes: Uint8Array): string | null {
  const found = SIGNATURES.find(([offset, signature]) => startsWith(bytes, offset, signature));
  if (found) return found[2];
  const [first = 0, second = 0] = bytes;
  if (first === 0xff && (second & 0xf6) === 0xf0) return "audio/aac";
  if (first === 0xff && (second & 0xe0) === 0xe0) return "audio/mpeg";
  return null;
}

/**
 * `bytes` as a reference clip, or OpenAI's 400 naming `param` and what is wrong.
 *
 * @example checkReferenceClip(wavBytes, "file") // { contentType: "audio/wav", durationSec: 4.2, ... }
 */
export function checkReferenceClip(bytes: Uint8Array, param: string): CheckedClip {
  if (bytes.byteLength === 0) throw refuse(param, `${param} is empty`);
  if (bytes.byteLength > ENROLLED_CLIP.maxBytes) {
    throw refuse(
      param,
      `${param} is ${bytes.byteLength} bytes: a reference clip is at most ${ENROLLED_CLIP.maxBytes}`,
    );
  }
  const contentType = containerType(bytes);
  if (!contentType) {
    throw refuse(
      param,
      `${param} is not an audio file: send a 2-${ENROLLED_CLIP.maxSec} s recording (WAV, MP3, M4A, OGG, FLAC, WebM...)`,
    );
  }
  if (contentType !== "audio/wav") return { bytes, contentType, durationSec: null };
  const wav = readWav(bytes);
  if (wav.kind !== "wav") {
    throw refuse(
      param,
      `${param} is not a readable WAV: ${wav.kind === "invalid" ? wav.reason : "no WAVE header"}`,
    );
  }
  if (wav.format.encoding === "other") return { bytes, contentType, durationSec: null };
  const durationSec = wavDurationSec(wav);
  if (durationSec < ENROLLED_CLIP.minSec || durationSec > ENROLLED_CLIP.maxSec) {
    throw refuse(
      param,
      `${param} is ${durationSec.toFixed(1)} s long: a reference clip must be ${ENROLLED_CLIP.minSec}-${ENROLLED_CLIP.maxSec} s`,
    );
  }
  return { bytes, contentType, durationSec };
}
