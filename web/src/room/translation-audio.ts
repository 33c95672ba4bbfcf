import type { TranslationAudio } from "../../../protocol/rooms.ts";

/**
 * A spoken translation of one final (the room's `translation_audio` message, docs/api.md "Spoken
 * translations"): sent right after the `transcript` final it speaks, to participants who asked for
 * speech (`speak=true` on join, or `{"type":"speak","enabled":true}`).
 */
export type { TranslationAudio };

/**
 * The clip of a `translation_audio` message as a Blob of its content type.
 *
 * @example audio.src = URL.createObjectURL(clipBlob(message));
 */
export function clipBlob(message: Pick<TranslationAudio, "audio" | "content_type">): Blob {
  const binary = atob(message.audio);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new Blob([bytes], { type: message.content_type });
}
