/**
 * Which catalog voices narrate an audio or video overview: the ones asked for, else the language's
 * female voice for the first host and, for a second host, the other gender. One rule for the Worker
 * (a create form is refused at once when it can tell) and the node (which applies it when it runs).
 */
import { VOICES, type Voice } from "./content-params.ts";
import { quoted } from "./quoted.ts";

/** Why the voices asked for cannot narrate: each is its own create-form error_key. */
export type NarrationVoiceProblem = "unknown_voice" | "voice_language_mismatch" | "duplicate_voice";

export type NarrationVoices =
  | { ok: true; first: Voice; second: Voice | null }
  | { ok: false; problem: NarrationVoiceProblem; message: string };

/**
 * The narrators of an overview in `language`: one, or two (`twoHosts`) that are not the same voice.
 * A voice of another language would read the script with the wrong phonemes, so it is refused.
 *
 * @example
 * narrationVoices("en", { voice_id: "en-gb-male" }, true); // { ok: true, first: Oliver, second: Emma }
 * narrationVoices("vi", { voice_id: "en-male" }, false).ok; // false (voice_language_mismatch)
 */
export function narrationVoices(
  language: Voice["language"],
  asked: { voice_id?: string | null; voice_id_2?: string | null },
  twoHosts: boolean,
): NarrationVoices {
  const pick = (id: string | null | undefined, gender: Voice["gender"], field: string) => {
    const voice = id
      ? VOICES.find((v) => v.voice_id === id)
      : VOICES.find((v) => v.language === language && v.gender === gender);
    if (!voice)
      return {
        ok: false,
        problem: "unknown_voice",
        message: `unknown ${field} ${quoted(id ?? "")}`,
      } as const;
    if (voice.language !== language) {
      return {
        ok: false,
        problem: "voice_language_mismatch",
        message: `${field} "${voice.voice_id}" speaks ${voice.language}, the overview is in ${language}`,
      } as const;
    }
    return { ok: true, voice } as const;
  };
  const first = pick(asked.voice_id, "female", "voice_id");
  if (!first.ok) return first;
  if (!twoHosts) return { ok: true, first: first.voice, second: null };
  const second = pick(asked.voice_id_2, first.voice.gender === "female" ? "male" : "female", "voice_id_2");
  if (!second.ok) return second;
  if (second.voice.voice_id === first.voice.voice_id) {
    return {
      ok: false,
      problem: "duplicate_voice",
      message: "voice_id and voice_id_2 are the same voice: a deep dive has two hosts",
    };
  }
  return { ok: true, first: first.voice, second: second.voice };
}
