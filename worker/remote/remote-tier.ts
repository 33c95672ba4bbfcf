import { workerConfig } from "../../platform/config.ts";
import { type RegistryEntry, WORKERS_AI_WHISPER_MODEL } from "../../protocol/model-registry.ts";
import { transcribeWithOpenAiEndpoint } from "./openai-endpoint.ts";
import { RemoteTierError, tierFailure } from "./remote-failure.ts";
import type { RemoteAsk, RemoteAudio, RemoteTranscript } from "./remote-transcript.ts";
import { pcmSeconds, readPcmWav, WavHeaderError } from "./wav-chunks.ts";
import { type SpeechModelBinding, transcribeWithWorkersAi } from "./workers-ai-whisper.ts";

/**
 * The registry's remote tier (`kind: "http"`): which entry, and one call to it whatever its provider.
 * The Worker is the one caller of every remote tier (docs/architecture.md "Remote recognition tier").
 */

/** The default entry when it is an `http` one: file jobs and the sync route then run at the edge. */
export function remoteDefaultEntry(env: Env): RegistryEntry | null {
  const registry = workerConfig(env).modelRegistry;
  const entry = registry.models.find((model) => model.id === registry.default_model);
  return entry?.kind === "http" ? entry : null;
}

/**
 * Whether an `http` entry can serve now (/models `ready`): an endpoint configured, which for Workers AI
 * is the deployment's AI binding.
 */
export function remoteEntryReady(env: Env, entry: RegistryEntry): boolean {
  return entry.provider === "workers_ai" ? workersAiBinding(env) !== null : Boolean(entry.endpoint);
}

/** The deployment's Workers AI binding; null without one (plain `wrangler dev` has no `[ai]`). */
function workersAiBinding(env: Env): SpeechModelBinding | null {
  return ((env as { AI?: unknown }).AI as SpeechModelBinding | undefined) ?? null;
}

/**
 * One transcription by the entry's provider. `onProgress` hears the share done (0–1) between calls.
 * Failures are RemoteTierError (closed failure codes); a cancel rethrows the signal's reason.
 */
export async function callRemoteTier(
  env: Env,
  entry: RegistryEntry,
  audio: RemoteAudio,
  ask: RemoteAsk,
  signal: AbortSignal,
  onProgress: (share: number) => Promise<void>,
): Promise<RemoteTranscript> {
  // MAX_AUDIO_DURATION_SEC holds on every tier, as on nodes: a PCM WAV is measured from its (checked)
  // header before any call; other audio by the length the tier reports.
  const maxSec = workerConfig(env).maxAudioDurationSec;
  const wavSec = pcmWavSeconds(audio.bytes);
  if (wavSec !== null && wavSec > maxSec) throw tooLong(wavSec, maxSec);
  const transcript = await callProvider(env, entry, audio, ask, signal, onProgress);
  if (transcript.durationSec !== null && transcript.durationSec > maxSec)
    throw tooLong(transcript.durationSec, maxSec);
  return transcript;
}

/** Seconds of a PCM WAV; null for other audio; a contradictory header is the media's fault. */
function pcmWavSeconds(bytes: Uint8Array): number | null {
  try {
    const wav = readPcmWav(bytes);
    return wav ? pcmSeconds(wav.format, wav.data) : null;
  } catch (error) {
    if (!(error instanceof WavHeaderError)) throw error;
    throw new RemoteTierError(
      { code: "media_unreadable", message: `unreadable audio: ${error.message}` },
      false,
    );
  }
}

function tooLong(durationSec: number, maxSec: number): RemoteTierError {
  return new RemoteTierError(
    {
      code: "audio_too_long",
      message: `the audio (${Math.round(durationSec)} s) is longer than the ${maxSec} s limit (MAX_AUDIO_DURATION_SEC)`,
    },
    false,
  );
}

async function callProvider(
  env: Env,
  entry: RegistryEntry,
  audio: RemoteAudio,
  ask: RemoteAsk,
  signal: AbortSignal,
  onProgress: (share: number) => Promise<void>,
): Promise<RemoteTranscript> {
  if (entry.provider === "workers_ai") {
    const ai = workersAiBinding(env);
    if (!ai)
      throw configFault(
        entry,
        "Workers AI is not bound on this deployment (the [ai] binding of --env production)",
      );
    return transcribeWithWorkersAi(
      ai,
      entry.remote_model ?? WORKERS_AI_WHISPER_MODEL,
      audio,
      ask,
      signal,
      entry.timeout_sec,
      (done, total) => onProgress(done / total),
    );
  }
  if (!entry.endpoint) throw configFault(entry, "it has no endpoint");
  const apiKey = entry.api_key_env ? bearerSecret(env, entry.api_key_env) : null;
  if (entry.api_key_env && !apiKey)
    throw configFault(entry, `the secret ${entry.api_key_env} it names is not set`);
  return transcribeWithOpenAiEndpoint(
    { url: entry.endpoint, model: entry.remote_model ?? entry.id, apiKey, timeoutSec: entry.timeout_sec },
    audio,
    ask,
    signal,
  );
}

/** The Worker secret (or var) an entry's `api_key_env` names. */
function bearerSecret(env: Env, name: string): string | null {
  const value = (env as unknown as Record<string, unknown>)[name];
  return typeof value === "string" && value !== "" ? value : null;
}

/** A registry entry that cannot be called: the deployment's fault, permanent for this task. */
function configFault(entry: RegistryEntry, why: string): RemoteTierError {
  return tierFailure(
    "remote_refused",
    false,
    `the remote recognition tier ${entry.id} cannot be called: ${why}`,
  );
}
