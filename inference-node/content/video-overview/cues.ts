/**
 * Caption cues of a narrated video from the synthesizer's word times: a cue is at most two lines of
 * about 42 characters (the broadcast norm) and ends at a sentence's end or a pause, so captions follow
 * the voice. The same cues are burned in and written as the SRT/VTT sidecar.
 */
import type { Cue } from "../../../protocol/subtitles.ts";
import type { WordTiming } from "../tts/synthesizer.ts";

/** Characters a cue holds: two lines of about 42. */
const MAX_CUE_CHARS = 84;
/** Longest a cue stays up, seconds: reading speed, not the speaker's pace, sets it. */
const MAX_CUE_SEC = 6;
/** A pause this long ends a cue. */
const PAUSE_SEC = 0.35;

/**
 * The cues of one narration whose WAV starts `offset` seconds into the video.
 *
 * @example narrationCues([{ text: "Hello.", start: 0, end: 0.4 }], 12)[0]; // { start: 12, end: 12.4, text: "Hello.", speaker: null }
 */
export function narrationCues(words: readonly WordTiming[], offset: number): Cue[] {
  const cues: Cue[] = [];
  let current: WordTiming[] = [];
  const close = () => {
    const first = current[0];
    const last = current.at(-1);
    if (first && last) {
      cues.push({
        start: round(offset + first.start),
        end: round(offset + last.end),
        text: current.map((word) => word.text).join(" "),
        speaker: null,
      });
    }
    current = [];
  };
  words.forEach((word, i) => {
    const first = current[0];
    const text = [...current, word].map((w) => w.text).join(" ");
    if (first && (text.length > MAX_CUE_CHARS || word.end - first.start > MAX_CUE_SEC)) close();
    current.push(word);
    const next = words[i + 1];
    if (/[.!?…]$/.test(word.text) || (next && next.start - word.end > PAUSE_SEC)) close();
  });
  close();
  return cues;
}

const round = (sec: number) => Math.round(sec * 1000) / 1000;
