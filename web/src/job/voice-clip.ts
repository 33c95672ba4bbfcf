/**
 * A speaker's voice cut from a job's stored audio, to enrol it (POST /v1/speakers): which stretch of
 * the transcript to take, and that stretch as a 16 kHz mono WAV data URL, made in the browser from the
 * audio the job page already plays.
 */
import type { Segment } from "../api/types.ts";
import { wavBytes, wavDataUrl } from "../audio/wav.ts";

/** What the API takes as an enrolled voice's reference clip (docs/api.md "Enrolled speakers"). */
export const CLIP_MIN_SEC = 2;
export const CLIP_MAX_SEC = 30;
/** Within one turn, segments this close together are one stretch of speech. */
const JOIN_GAP_SEC = 1;

export interface Span {
  start: number;
  end: number;
}

/**
 * The longest stretch the speaker talks alone (their consecutive segments, gaps under a second),
 * cut to CLIP_MAX_SEC; null when no stretch reaches CLIP_MIN_SEC (too little of the voice to enrol).
 *
 * @example voiceSpan(segments, "SPEAKER_01") // { start: 12.4, end: 19.9 }
 */
export function voiceSpan(segments: readonly Segment[], label: string): Span | null {
  let best: Span | null = null;
  let run: Span | null = null;
  for (const segment of segments) {
    if (segment.speaker !== label) {
      run = null;
      continue;
    }
    run =
      run && segment.start - run.end < JOIN_GAP_SEC
        ? { start: run.start, end: segment.end }
        : { start: segment.start, end: segment.end };
    if (!best || run.end - run.start > best.end - best.start) best = run;
  }
  if (!best || best.end - best.start < CLIP_MIN_SEC) return null;
  return { start: best.start, end: Math.min(best.end, best.start + CLIP_MAX_SEC) };
}

const CLIP_RATE = 16_000;

/**
 * The stretch `span` of the audio at `url` as a WAV data URL: fetched, decoded and resampled to
 * 16 kHz mono by the browser (OfflineAudioContext), then cut.
 */
export async function clipFromAudio(url: string, span: Span): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the job's audio could not be read (${response.status})`);
  const encoded = await response.arrayBuffer();
  const decoder = new OfflineAudioContext(1, CLIP_RATE, CLIP_RATE);
  const audio = await decoder.decodeAudioData(encoded);
  const first = Math.floor(span.start * CLIP_RATE);
  const last = Math.min(audio.length, Math.ceil(span.end * CLIP_RATE));
  return wavDataUrl(wavBytes(audio.getChannelData(0).slice(first, last), CLIP_RATE));
}
