import { workerConfig } from "../../platform/config.ts";
import { type RegistryEntry, WORKERS_AI_WHISPER_MODEL } from "../../protocol/model-registry.ts";
import { transcribeWithOpenAiEndpoint } from "./openai-endpoint.ts";
import { type CheckedAudio, checkAnswerDuration, checkAudioBeforeCall } from "./remote-audio-limits.ts";
import { RemoteTierError } from "./remote-failure.ts";
import type { RemoteAsk, RemoteAudio, RemoteTranscript } from "./remote-transcript.ts";
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
 * Every provider's audio passes the same checks (remote-audio-limits.ts): a sane WAV header, and
 * MAX_AUDIO_DURATION_SEC before the call (from a WAV's header) and after it (from the answer).
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
  const { maxAudioDurationSec } = workerConfig(env);
  const checked = checkAudioBeforeCall(audio.bytes, maxAudioDurationSec);
  const transcript = await callProvider(env, entry, audio, checked, ask, signal, onProgress);
  checkAnswerDuration(transcript, maxAudioDurationSec);
  return transcript;
}

async function callProvider(
  env: Env,
  entry: RegistryEntry,
  audio: RemoteAudio,
  checked: CheckedAudio,
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
      { ...audio, checked },
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
    {
      url: entry.endpoint,
      model: entry.remote_model ?? entry.id,
      apiKey,
      timeoutSec: entry.timeout_sec,
      timestamps: entry.supports_timestamps,
    },
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
  return new RemoteTierError(
    { code: "remote_refused", message: `the remote recognition tier ${entry.id} cannot be called: ${why}` },
    false,
  );
}
