/**
 * The decode policy of live transcription, pure: how large an encoder window and how many tokens a
 * decode of so much audio gets, which language it is asked in, and which prompt it carries.
 */
import type { DecodeOptions } from "../../native/index.ts";
import { SAMPLE_RATE } from "./segmenter.ts";

/**
 * The smallest encoder context a live decode gets (5.12 s of audio). whisper was trained on 30 s
 * windows only, and whisper.cpp notes that a reduced `audio_ctx` can cost accuracy and make the
 * decoder repeat itself; the shorter the window, the worse. The floor keeps the first interims of an
 * utterance away from the smallest windows, at a cost that stays small (see docs/native.md).
 */
export const MIN_AUDIO_CTX = 256;

/**
 * Encoder context for `samples` of audio: 50 positions a second plus a margin, in steps of 64, at
 * least MIN_AUDIO_CTX (0 = whisper's full 1500 once the audio nears 30 s). A short live buffer then
 * costs a fraction of a full 30 s window.
 */
export function fitAudioCtx(samples: number): number {
  const ctx = Math.max(MIN_AUDIO_CTX, Math.ceil(((samples / SAMPLE_RATE) * 50) / 64) * 64 + 64);
  return ctx >= 1500 ? 0 : ctx;
}

/**
 * Tokens one live decode may produce for `samples` of audio: 8 plus 8 a second, and never more than
 * the node's own cap (`maxTokens`, 0 = none). Whisper samples at most 224 tokens per 30 s window
 * (7.5 a second, its training set-up), so speech whisper can transcribe fits; a decode that goes on
 * is looping. Without timestamp tokens nothing else ends a decode that does not reach end-of-text (a
 * looping decoder, a synthetic model), so this bounds its cost to the audio heard.
 */
export function liveTokenBudget(samples: number, maxTokens: number): number {
  const budget = 8 + Math.ceil((samples / SAMPLE_RATE) * 8);
  return maxTokens > 0 ? Math.min(maxTokens, budget) : budget;
}

/** Text carried from one final into the next utterance's prompt: its last 200 characters (~50 tokens). */
const MAX_PROMPT_CHARS = 200;

/** The tail of `text` to carry as a prompt, cut at a word boundary. */
export function promptTail(text: string): string {
  if (text.length <= MAX_PROMPT_CHARS) return text;
  const tail = text.slice(-MAX_PROMPT_CHARS);
  const space = tail.indexOf(" ");
  return space < 0 ? tail : tail.slice(space + 1);
}

/** What a decode is asked, decided when it starts (an earlier final may have set language and prompt). */
export interface DecodeAsk {
  /** The language the utterance began with: a code or "auto". */
  asked: string;
  /** The language detected on the utterance's first decode, if any. */
  detected: string | null;
  /** The last final's text and language. */
  carried: { text: string; language: string } | null;
  samples: number;
  audioCtx: number;
  maxTokens: number;
  threads: number;
  signal: AbortSignal;
}

/**
 * The options of one live decode: a detected language is kept for the utterance's later decodes, and
 * the prompt is carried only into a decode of its own language (another would pull the decoder towards it).
 */
export function liveDecodeOptions(ask: DecodeAsk): DecodeOptions {
  const language = ask.asked === "auto" ? (ask.detected ?? "auto") : ask.asked;
  const carried = ask.carried;
  const prompt = carried && (language === "auto" || language === carried.language) ? carried.text : "";
  return {
    language,
    audioCtx: ask.audioCtx,
    threads: ask.threads,
    // one segment per decode, as whisper.cpp's stream example decodes its sliding window: no
    // timestamp tokens to spend the token budget on, and none to make whisper seek within the buffer
    timestamps: false,
    maxTokens: liveTokenBudget(ask.samples, ask.maxTokens),
    ...(prompt && { initialPrompt: prompt }),
    signal: ask.signal,
  };
}
