/**
 * The cleaning pipeline every recognition tier runs on its segments (the node's whisper.cpp, the
 * Worker's remote tier), so a transcript reads the same whoever made it. Per segment, in order:
 * markers removed → repeated n-grams collapsed → dropped when it is a known silence hallucination the
 * decoder doubted → (across segments) looping segments collapsed → spacing cleaned and, for
 * Vietnamese, sentence starts capitalized → dropped when empty.
 */
import { type HallucinationOptions, isSilenceHallucination } from "./hallucinations.ts";
import { removeMarkers } from "./markers.ts";
import { collapseRepeatedSegments, collapseRepetitions, type RepetitionOptions } from "./repetition.ts";
import { joinPieces } from "./text.ts";
import { endsSentence, truecase } from "./truecase.ts";

/** One decoded segment, already offset to seconds from the clip start. */
export interface DecodedSegment {
  start: number;
  end: number;
  /** As the model wrote it (whisper: usually with a leading space). */
  text: string;
  noSpeechProb: number;
  /** NaN when the segment had no text tokens. */
  avgLogprob: number;
  /** A label someone already assigned; wins over `assignSpeaker` and `speakerTurns`. */
  speaker?: string | null;
}

export interface CleanOptions extends HallucinationOptions, RepetitionOptions {}

/** A cleaned segment: text final, speaker still to assign. */
export interface CleanSegment {
  start: number;
  end: number;
  text: string;
  speaker?: string | null;
}

export interface CleanTranscript {
  /** The model's segment texts joined verbatim (each trimmed, joined by script). */
  rawText: string;
  /** The cleaned segment texts joined the same way. */
  text: string;
  segments: CleanSegment[];
}

/**
 * Runs the cleaning pipeline (module comment) over a transcript's segments. Cheap and pure: the
 * caller may run it to get the text to translate, then build the result from the same segments.
 *
 * @example
 * cleanTranscript([{ start: 0, end: 2, text: " xin chào [Âm nhạc]", noSpeechProb: 0.01, avgLogprob: -0.2 }], "vi").text;
 * // "Xin chào"
 */
export function cleanTranscript(
  segments: readonly DecodedSegment[],
  language: string,
  options: CleanOptions = {},
): CleanTranscript {
  const kept: CleanSegment[] = [];
  for (const seg of segments) {
    const text = collapseRepetitions(removeMarkers(seg.text), options);
    if (!text || isSilenceHallucination(text, seg, options)) continue;
    kept.push({
      start: seg.start,
      end: seg.end,
      text,
      ...(seg.speaker !== undefined && { speaker: seg.speaker }),
    });
  }
  let atSentenceStart = true;
  const cleaned: CleanSegment[] = [];
  for (const seg of collapseRepeatedSegments(kept, { minRepeats: options.minRepeats })) {
    const text = truecase(seg.text, language, atSentenceStart);
    if (!text) continue;
    atSentenceStart = endsSentence(text);
    cleaned.push({ ...seg, text });
  }
  return {
    rawText: joinPieces(segments.map((s) => s.text)),
    text: joinPieces(cleaned.map((s) => s.text)),
    segments: cleaned,
  };
}
