/**
 * Spoken translations for rooms: a room asks the node serving its speaker's stream to speak one final
 * in one language (`synthesize`, protocol/live-speech.ts), and the answer goes back on that link. The
 * node's TTS is the content tasks' choice of engine (VOXEDGE_TTS_URL: an OpenAI-compatible server;
 * otherwise espeak-ng), but spoken whole, without the word timings narration measures: a live final
 * wants its audio fast. Audio goes out as 16 kHz PCM16 WAV (silence trimmed), a third smaller than
 * espeak-ng's 22.05 kHz, within SPEECH_MAX_AUDIO_BYTES.
 */
import { spawn } from "node:child_process";
import {
  SPEECH_MAX_AUDIO_BYTES,
  type SynthesisFailedMessage,
  type SynthesizedMessage,
  type SynthesizeRequest,
} from "../../protocol/live-speech.ts";
import { ContentError } from "../content/errors.ts";
import { runTool } from "../content/process.ts";
import { durationOf, encodeWav, type Pcm, parseWav, resample, trimSilence } from "../content/tts/wav.ts";

/** The rate of the audio sent: speech needs no more, and it keeps the messages small. */
const SPEECH_SAMPLE_RATE = 16_000;
/** A synthesis that takes longer fails (tts_failed), before the room's own 8 s wait runs out. */
export const SPEECH_TIMEOUT_MS = 7_000;
/** Syntheses running at once on a node (each an espeak-ng process or a server call); others wait. */
const SPEECH_CONCURRENCY = 2;

/** One engine that turns text in a language into PCM. */
export interface SpeechEngine {
  readonly engine: string;
  /** Rejects with ContentError `tts_unavailable` (missing, no voice for the language) or `tts_failed`. */
  speak(text: string, language: string, signal: AbortSignal): Promise<Pcm>;
}

/** espeak-ng's voice for a language code: its own, `cmn` for Chinese, else its first regional one. */
export function espeakVoiceFor(language: string, voices: readonly string[]): string | null {
  const code = language === "zh" ? "cmn" : language;
  return voices.find((v) => v === code) ?? voices.find((v) => v.startsWith(`${code}-`)) ?? null;
}

/** espeak-ng's CLI, one process per synthesis. */
export class EspeakSpeech implements SpeechEngine {
  readonly engine = "espeak-ng";
  #voices: Promise<string[]> | null = null;

  constructor(private readonly binary = process.env.VOXEDGE_ESPEAK_PATH ?? "espeak-ng") {}

  async speak(text: string, language: string, signal: AbortSignal): Promise<Pcm> {
    const voice = espeakVoiceFor(language, await this.#languages());
    if (!voice) throw new ContentError("tts_unavailable", `espeak-ng has no voice for ${language}`);
    const wav = await runTool(this.binary, ["-v", voice, "-s", "165", "--stdout", "--stdin"], {
      signal,
      input: text,
      missingCode: "tts_unavailable",
      failedCode: "tts_failed",
    });
    return parseWav(wav);
  }

  /** The languages of `espeak-ng --voices`, read once (empty when the binary is missing). */
  #languages(): Promise<string[]> {
    this.#voices ??= new Promise((resolve) => {
      const child = spawn(this.binary, ["--voices"], { stdio: ["ignore", "pipe", "ignore"] });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
      });
      child.on("error", () => resolve([]));
      child.on("close", () => resolve(out.split("\n").flatMap((line) => line.trim().split(/\s+/)[1] ?? [])));
    });
    return this.#voices;
  }
}

export interface OpenAiSpeechOptions {
  /** Base URL; /v1/audio/speech is appended. */
  url: string;
  apiKey?: string;
  model: string;
  /** The server's voice (VOXEDGE_TTS_VOICE, default "alloy"). */
  voice: string;
}

/** An OpenAI-compatible speech server (`POST /v1/audio/speech`, WAV asked for). */
export class OpenAiSpeech implements SpeechEngine {
  readonly engine = "openai";

  constructor(private readonly options: OpenAiSpeechOptions) {}

  async speak(text: string, _language: string, signal: AbortSignal): Promise<Pcm> {
    const url = `${this.options.url.replace(/\/+$/, "")}/v1/audio/speech`;
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
          input: text,
          voice: this.options.voice,
          response_format: "wav",
        }),
        signal,
      });
    } catch (error) {
      signal.throwIfAborted();
      throw new ContentError("tts_unavailable", `TTS server cannot be reached: ${url}`, { cause: error });
    }
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.ok) throw new ContentError("tts_failed", `TTS server answered HTTP ${response.status}`);
    try {
      return parseWav(body);
    } catch (error) {
      throw new ContentError("tts_failed", `TTS server returned no PCM WAV: ${String(error)}`);
    }
  }
}

/**
 * The node's engine for spoken translations, as for narration: VOXEDGE_TTS_URL set, that server
 * (VOXEDGE_TTS_API_KEY, VOXEDGE_TTS_MODEL default "tts-1", VOXEDGE_TTS_VOICE default "alloy");
 * otherwise espeak-ng (a node without it answers tts_unavailable).
 */
export function liveSpeechFromEnv(env: NodeJS.ProcessEnv): SpeechEngine {
  const url = env.VOXEDGE_TTS_URL?.trim();
  if (!url) return new EspeakSpeech();
  return new OpenAiSpeech({
    url,
    model: env.VOXEDGE_TTS_MODEL?.trim() || "tts-1",
    voice: env.VOXEDGE_TTS_VOICE?.trim() || "alloy",
    ...(env.VOXEDGE_TTS_API_KEY ? { apiKey: env.VOXEDGE_TTS_API_KEY } : {}),
  });
}

/**
 * Answers `synthesize` requests with one engine, SPEECH_CONCURRENCY at a time per node (the rest wait
 * their turn, in arrival order), so a burst of languages does not starve the live decodes of CPU.
 *
 * @example
 * const speech = new LiveSpeech(new EspeakSpeech());
 * send(await speech.answer({ type: "synthesize", id: "1-es", text: "Hola.", language: "es" }));
 */
export class LiveSpeech {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  /** `engine` null: this node has no TTS (every request answers tts_unavailable). */
  constructor(private readonly engine: SpeechEngine | null) {}

  async answer(request: SynthesizeRequest): Promise<SynthesizedMessage | SynthesisFailedMessage> {
    const failed = (code: SynthesisFailedMessage["code"], message: string): SynthesisFailedMessage => ({
      type: "synthesis_failed",
      id: request.id,
      code,
      message: message.slice(0, 500),
    });
    if (!this.engine) return failed("tts_unavailable", "this node has no text-to-speech engine");
    await this.#turn();
    try {
      const pcm = trimSilence(
        await this.engine.speak(request.text, request.language, AbortSignal.timeout(SPEECH_TIMEOUT_MS)),
      );
      if (pcm.samples.length === 0) return failed("tts_failed", "the speech is silent");
      const speech = resample(pcm, SPEECH_SAMPLE_RATE);
      const wav = encodeWav(speech);
      if (wav.byteLength > SPEECH_MAX_AUDIO_BYTES) {
        return failed("tts_failed", `the speech is ${durationOf(speech).toFixed(1)} s, too long to send`);
      }
      return {
        type: "synthesized",
        id: request.id,
        content_type: "audio/wav",
        duration: Math.round(durationOf(speech) * 1000) / 1000,
        audio: wav.toString("base64"),
      };
    } catch (error) {
      if (error instanceof ContentError && error.code === "tts_unavailable")
        return failed("tts_unavailable", error.message);
      return failed("tts_failed", error instanceof Error ? error.message : String(error));
    } finally {
      const next = this.#waiting.shift();
      if (next)
        next(); // the place passes on as it is
      else this.#running -= 1;
    }
  }

  /** Takes a place among SPEECH_CONCURRENCY, or waits for one to be passed on. */
  async #turn(): Promise<void> {
    if (this.#running < SPEECH_CONCURRENCY) this.#running += 1;
    else await new Promise<void>((go) => this.#waiting.push(go));
  }
}
