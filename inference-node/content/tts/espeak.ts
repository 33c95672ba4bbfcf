/**
 * Local narration with Debian's espeak-ng CLI and real word timings.
 *
 * The CLI reports no word events (SSML <mark> callbacks exist only in the C API), so timings are
 * measured from audio: the text is spoken phrase by phrase (the caption lines, a few words each,
 * with continuation intonation inside a sentence) and the phrase WAVs are trimmed and joined at
 * known sample offsets, which makes every phrase boundary exact. Inside a phrase, each word's share
 * is its own spoken length, measured once per narration from a single espeak-ng run that speaks
 * every word in isolation separated by SSML breaks (the silent gaps split it back into words).
 * We chose this over the WebAssembly build (@echogarden/espeak-ng-emscripten, which has word events)
 * to keep the GPL engine a separate process that an abort can kill, and the 24 MB data file off the node.
 */
import { spawnSync } from "node:child_process";
import type { Voice } from "../../../protocol/content.ts";
import { ContentError } from "../errors.ts";
import { runTool } from "../process.ts";
import { splitPhrases, splitSentences, splitWords, termOf } from "../text.ts";
import { assemblePieces, type SpokenPiece } from "./assemble.ts";
import { mapLimit, type Speech, type SpeechSynthesizer } from "./synthesizer.ts";
import { audibleIslands, durationOf, type Pcm, parseWav, writeWav } from "./wav.ts";

/** espeak-ng voice (language + variant) for each catalog voice. */
export const ESPEAK_VOICES: Readonly<Record<string, string>> = {
  "en-male": "en-us+m3",
  "en-female": "en-us+f3",
  "en-gb-male": "en-gb+m1",
  "vi-male": "vi+m3",
  "vi-female": "vi+f2",
};

export interface EspeakOptions {
  /** The espeak-ng binary (default "espeak-ng" on PATH, or VOXEDGE_ESPEAK_PATH). */
  binary?: string;
  /** Speaking rate in words per minute (espeak-ng `-s`). */
  wordsPerMinute?: number;
  /** Phrases synthesized at once. */
  concurrency?: number;
}

/** Break between isolated words of the measuring run; gaps longer than ISLAND_GAP_SEC split words. */
const MEASURE_BREAK_MS = 300;
const ISLAND_GAP_SEC = 0.15;

const escapeXml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * @example
 * const tts = new EspeakSynthesizer();
 * const speech = await tts.synthesize("Xin chào các bạn.", voice, signal, "/tmp/x.wav");
 */
export class EspeakSynthesizer implements SpeechSynthesizer {
  readonly engine = "espeak-ng";
  private readonly binary: string;
  private readonly wordsPerMinute: number;
  private readonly concurrency: number;

  constructor(options: EspeakOptions = {}) {
    this.binary = options.binary ?? process.env.VOXEDGE_ESPEAK_PATH ?? "espeak-ng";
    this.wordsPerMinute = options.wordsPerMinute ?? 165;
    this.concurrency = options.concurrency ?? 2;
  }

  /** True when the binary runs (for /health-style checks and previews). */
  available(): boolean {
    return spawnSync(this.binary, ["--version"], { stdio: "ignore" }).status === 0;
  }

  async synthesize(text: string, voice: Voice, signal: AbortSignal, wavPath: string): Promise<Speech> {
    const espeakVoice = ESPEAK_VOICES[voice.voice_id];
    if (!espeakVoice) throw new ContentError("invalid_params", `no espeak-ng voice for ${voice.voice_id}`);
    const phrases = splitSentences(text, voice.language).flatMap((sentence) => {
      const parts = splitPhrases(sentence);
      return parts.map((phrase, i) => ({ phrase, sentenceEnd: i === parts.length - 1 }));
    });
    if (phrases.length === 0) throw new ContentError("tts_failed", "nothing to speak");

    const weights = await this.measureWords(phrases.map((p) => p.phrase).join(" "), espeakVoice, signal);
    let wordIndex = 0;
    const pieces = await mapLimit(phrases, this.concurrency, async ({ phrase, sentenceEnd }) => {
      // A comma keeps the rising, unfinished intonation of a phrase inside a sentence.
      const spoken = sentenceEnd || /[,;:]$/.test(phrase) ? phrase : `${phrase},`;
      const pcm = await this.speak(spoken, espeakVoice, false, signal);
      return { pcm, sentenceEnd, phrase };
    });
    const spokenPieces: SpokenPiece[] = pieces.map(({ pcm, sentenceEnd, phrase }) => ({
      pcm,
      sentenceEnd,
      words: splitWords(phrase).map((word) => {
        const weight = weights?.[wordIndex] ?? [...word].length;
        wordIndex += 1;
        return { text: word, weight };
      }),
    }));
    const sampleRate = spokenPieces[0]?.pcm.sampleRate ?? 22050;
    const { pcm, words } = assemblePieces(spokenPieces, sampleRate);
    await writeWav(wavPath, pcm);
    return { wavPath, durationSec: durationOf(pcm), words, timing: weights ? "measured" : "proportional" };
  }

  /**
   * Each word's isolated spoken length, from one run with breaks between words; null when the
   * audio does not split into exactly one stretch per word (then characters are the weights).
   */
  private async measureWords(
    text: string,
    espeakVoice: string,
    signal: AbortSignal,
  ): Promise<number[] | null> {
    const words = splitWords(text).map(termOf);
    const ssml = `<speak>${words.map(escapeXml).join(`<break time="${MEASURE_BREAK_MS}ms"/>`)}</speak>`;
    const pcm = await this.speak(ssml, espeakVoice, true, signal);
    const islands = audibleIslands(pcm, ISLAND_GAP_SEC);
    if (islands.length !== words.length) return null;
    return islands.map(([start, end]) => end - start);
  }

  private async speak(text: string, espeakVoice: string, ssml: boolean, signal: AbortSignal): Promise<Pcm> {
    const args = ["-v", espeakVoice, "-s", String(this.wordsPerMinute), "-z", "--stdout", "--stdin"];
    if (ssml) args.unshift("-m");
    const wav = await runTool(this.binary, args, {
      signal,
      input: text,
      missingCode: "tts_unavailable",
      failedCode: "tts_failed",
    });
    try {
      return parseWav(wav);
    } catch (error) {
      throw new ContentError("tts_failed", `espeak-ng returned unreadable audio: ${String(error)}`);
    }
  }
}
