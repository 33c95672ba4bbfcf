import type { Segment } from "../../protocol/transcription.ts";
import {
  alignWords,
  MAX_LOGPROB_TOKENS,
  type SegmentDetail,
  type TokenLogprob,
  type TranscriptionDetail,
  wordsFromTokens,
} from "../../protocol/transcription-detail.ts";
import { compressionRatio } from "../postprocess/looped.ts";
import type { DetailedSegment } from "./decode-stream.ts";

/**
 * The decoder detail of an interactive task (protocol/transcription-detail.ts): for each segment of the
 * finished result, the figures of the decoded segments it came from, and optionally its words timed
 * from whisper's token timestamps.
 */

export interface DetailOptions {
  /** Time the words (the caller asked for the `word` granularity and the decode had token times). */
  words: boolean;
  /** Temperature the decode started at. */
  temperature: number;
  /** List the text tokens with their log probabilities (`include[]=logprobs`). */
  logprobs?: boolean;
}

const EPS = 1e-6;

/**
 * Builds the detail for `segments` (the result's cleaned segments) from `decoded` (what whisper
 * returned). A cleaned segment keeps the start of the decoded segment it came from and may reach over
 * repeats the cleaning folded into it; decoded segments the cleaning dropped belong to none.
 *
 * @example buildDetail(result.segments, run.segments, { words: true, temperature: 0 }).segments.length === result.segments.length
 */
export function buildDetail(
  segments: readonly Segment[],
  decoded: readonly DetailedSegment[],
  options: DetailOptions,
): TranscriptionDetail {
  const sources = assign(segments, decoded);
  return {
    segments: segments.map((segment, i) => figures(segment, sources[i] ?? [], options.temperature)),
    words: options.words
      ? segments.flatMap((segment, i) =>
          alignWords(
            segment.text,
            wordsFromTokens((sources[i] ?? []).flatMap((d) => d.timedTokens)),
            segment,
          ),
        )
      : null,
    logprobs: options.logprobs ? sources.flatMap(tokenLogprobs).slice(0, MAX_LOGPROB_TOKENS) : null,
  };
}

/** The tokens of the decoded segments behind one result segment, in order. */
export function tokenLogprobs(sources: readonly DetailedSegment[]): TokenLogprob[] {
  return sources.flatMap((source) => source.tokenLogprobs);
}

/** The decoded segments behind each cleaned segment (both lists are in time order). */
export function assign(
  segments: readonly { start: number; end: number }[],
  decoded: readonly DetailedSegment[],
): DetailedSegment[][] {
  const groups = segments.map((): DetailedSegment[] => []);
  let k = 0;
  for (const source of decoded) {
    while (
      k + 1 < segments.length &&
      (segments[k + 1]?.start ?? Number.POSITIVE_INFINITY) <= source.start + EPS
    ) {
      k++;
    }
    const segment = segments[k];
    if (!segment) break;
    const startsIt = Math.abs(source.start - segment.start) <= EPS;
    if (startsIt || (source.start > segment.start && source.start < segment.end - EPS))
      groups[k]?.push(source);
  }
  return groups;
}

function figures(segment: Segment, sources: readonly DetailedSegment[], temperature: number): SegmentDetail {
  const tokens = sources.flatMap((source) => source.tokenIds);
  let weighted = 0;
  let counted = 0;
  let noSpeech = 0;
  for (const source of sources) {
    if (source.tokenIds.length > 0 && Number.isFinite(source.avgLogprob)) {
      weighted += source.avgLogprob * source.tokenIds.length;
      counted += source.tokenIds.length;
    }
    if (Number.isFinite(source.noSpeechProb)) noSpeech = Math.max(noSpeech, source.noSpeechProb);
  }
  return {
    seek: sources[0]?.seek ?? Math.floor(segment.start / 30) * 3000,
    tokens,
    temperature,
    avg_logprob: counted > 0 ? weighted / counted : 0,
    compression_ratio: compressionRatio(segment.text),
    no_speech_prob: noSpeech,
  };
}
