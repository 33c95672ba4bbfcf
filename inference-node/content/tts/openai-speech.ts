/**
 * Narration from an OpenAI-compatible speech server (`POST /v1/audio/speech`), used when
 * VOXEDGE_TTS_URL is set. The protocol returns audio only, no word events, so each sentence is
 * requested on its own (sentence boundaries are then exact) and the words inside a sentence are
 * spread over its audible length in proportion to their character counts.
 */
import type { Voice } from "../../../protocol/content.ts";
import { UNTRUSTED_INPUT_ARGS } from "../../media/container-policy.ts";
import { ContentError } from "../errors.ts";
import { runTool } from "../process.ts";
import { splitSentences, splitWords } from "../text.ts";
import { assemblePieces } from "./assemble.ts";
import { mapLimit, type Speech, type SpeechSynthesizer } from "./synthesizer.ts";
import { durationOf, type Pcm, parseWav, writeWav } from "./wav.ts";

export interface OpenAiSpeechOptions {
  /** Base URL, e.g. http://127.0.0.1:8880 (the path /v1/audio/speech is appended). */
  url: string;
  apiKey?: string;
  /** Model name sent as `model` (e.g. "tts-1", "kokoro"). */
  model: string;
  /** ffmpeg, to decode servers that ignore response_format "wav". */
  ffmpeg: string;
  /** Per-request limit. */
  timeoutMs?: number;
  concurrency?: number;
}

const SAMPLE_RATE = 24_000;

/**
 * @example
 * const tts = new OpenAiSpeechSynthesizer({ url: "http://127.0.0.1:8880", model: "tts-1", ffmpeg: "ffmpeg" });
 */
export class OpenAiSpeechSynthesizer implements SpeechSynthesizer {
  readonly engine = "openai";

  constructor(private readonly options: OpenAiSpeechOptions) {}

  async synthesize(text: string, voice: Voice, signal: AbortSignal, wavPath: string): Promise<Speech> {
    const sentences = splitSentences(text, voice.language);
    if (sentences.length === 0) throw new ContentError("tts_failed", "nothing to speak");
    const pcms = await mapLimit(sentences, this.options.concurrency ?? 2, (sentence) =>
      this.request(sentence, voice, signal),
    );
    const { pcm, words } = assemblePieces(
      sentences.map((sentence, i) => ({
        pcm: pcms[i] as Pcm,
        sentenceEnd: true,
        words: splitWords(sentence).map((word) => ({ text: word, weight: [...word].length })),
      })),
      SAMPLE_RATE,
    );
    await writeWav(wavPath, pcm);
    return { wavPath, durationSec: durationOf(pcm), words, timing: "proportional" };
  }

  private async request(input: string, voice: Voice, signal: AbortSignal): Promise<Pcm> {
    const url = `${this.options.url.replace(/\/+$/, "")}/v1/audio/speech`;
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 60_000);
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.options.model,
          input,
          voice: voice.remote_voice,
          response_format: "wav",
        }),
        signal: AbortSignal.any([signal, timeout]),
      });
    } catch (error) {
      signal.throwIfAborted();
      const why = timeout.aborted ? "timed out" : "cannot be reached";
      throw new ContentError("tts_unavailable", `TTS server ${why}: ${url}`, { cause: error });
    }
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.ok) {
      throw new ContentError(
        "tts_failed",
        `TTS server answered HTTP ${response.status}: ${body.toString("utf8").slice(0, 300)}`,
      );
    }
    try {
      return parseWav(body);
    } catch {
      return this.decode(body, signal);
    }
  }

  /** Any audio ffmpeg can read (mp3, opus, ...) to mono PCM16 WAV. */
  private async decode(audio: Buffer, signal: AbortSignal): Promise<Pcm> {
    const wav = await runTool(
      this.options.ffmpeg,
      [
        "-hide_banner",
        "-loglevel",
        "error",
        // the speech server's answer is decoded like an upload: pinned protocols and containers
        ...UNTRUSTED_INPUT_ARGS,
        "-i",
        "pipe:0",
        "-ac",
        "1",
        "-ar",
        String(SAMPLE_RATE),
        "-c:a",
        "pcm_s16le",
        "-f",
        "wav",
        "pipe:1",
      ],
      { signal, input: audio, missingCode: "renderer_unavailable", failedCode: "tts_failed" },
    );
    return parseWav(wav);
  }
}
