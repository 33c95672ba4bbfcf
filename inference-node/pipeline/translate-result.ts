import { languageName } from "../../protocol/languages.ts";
import type { TranscriptionResult } from "../../protocol/transcription.ts";
import { TaskFailureError } from "../task-failure.ts";
import { translationFailure } from "../translate/failure.ts";
import type { Translator } from "../translate/translator.ts";

/**
 * Speech translated into a language other than English (the compatible translations route's
 * `target_language`): the transcript in its own language, then every segment through the node's
 * translation backend. Whisper itself only translates into English, so this is the only way there.
 */

/**
 * The result with its text and every segment's text in `to`; `language` becomes the target's name,
 * `raw_text` keeps the decoded (untranslated) text. Segments are translated one by one so their times
 * still fit them; the text is the translated segments joined. Already in `to`: the result as it is.
 * Fails `translation_unavailable` without a translator or for a pair the backend refuses,
 * `translation_failed` when it fails otherwise.
 *
 * @example const spanish = await translateResult(result, "vi", "es", translator, signal); // spanish.language === "Spanish"
 */
export async function translateResult(
  result: TranscriptionResult,
  from: string,
  to: string,
  translator: Translator | null,
  signal: AbortSignal,
  /** Called after each segment: a long transcript's translation is a task alive (lease-loop.ts). */
  onSegment?: () => void,
): Promise<TranscriptionResult> {
  if (from === to) return result;
  if (!translator) {
    throw new TaskFailureError(
      "translation_unavailable",
      `no translation backend on this node for ${from}->${to}`,
    );
  }
  const segments = [];
  try {
    for (const segment of result.segments) {
      const text = segment.text.trim() ? await translator.translate(segment.text, from, to, signal) : "";
      segments.push({ ...segment, text });
      onSegment?.();
    }
  } catch (error) {
    if (signal.aborted) throw error;
    const failure = translationFailure(error, from, to);
    throw new TaskFailureError(failure.code, failure.message, { cause: error });
  }
  return {
    ...result,
    text: segments
      .map((segment) => segment.text.trim())
      .filter(Boolean)
      .join(" "),
    language: languageName(to) ?? to,
    segments,
    translation: null,
  };
}
