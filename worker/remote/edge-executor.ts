import { workerConfig } from "../../platform/config.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { type BackoffPolicy, backoffDelayMs } from "../../protocol/backoff.ts";
import type { RegistryEntry } from "../../protocol/model-registry.ts";
import { type LeaseOf, NodeHealth } from "../../protocol/node.ts";
import { ApiError } from "../errors.ts";
import { outboundFetch } from "../outbound-fetch.ts";
import { completeLease, failLease, heartbeatLease, leaseTasks } from "../tasks/leasing.ts";
import { RemoteTierError } from "./remote-failure.ts";
import { readTaskMedia } from "./remote-media.ts";
import { callRemoteTier, remoteDefaultEntry } from "./remote-tier.ts";
import { type RemoteTranscript, toTranscriptionResult } from "./remote-transcript.ts";

/**
 * The Worker-side executor of the remote tier: it takes transcription leases from the Dispatcher like a
 * node does (same slots, fair order, MAX_CONCURRENT_TRANSCRIBE_JOBS, lease expiry and attempts), runs
 * each through the remote tier and reports through the same complete/fail/heartbeat functions as the
 * node routes, so results, progress, failure codes and history are the nodes' own. A Worker that dies
 * mid-call leaves a lease that expires and goes back in line; the next Queue delivery or the cron
 * sweep's kick runs it again.
 */

/** The identity the edge executor's leases carry (never a D1 node id, which are UUIDs, nor `shared`). */
export const EDGE_EXECUTOR: NodeIdentity = { id: "edge:remote-tier", name: "edge-remote-tier" };

/** Tries of one remote call within a lease before the attempt is handed back (transient failures only). */
export const REMOTE_CALL_TRIES = 3;
/** Backoff between tries: ½–1 × min(1 s · 2^n, 15 s), jittered so callers do not retry in step. */
const REMOTE_CALL_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 15_000, jitter: "equal" };

/** The remote tier's loops side by side when MAX_CONCURRENT_TRANSCRIBE_JOBS is `auto`. */
export const AUTO_REMOTE_LANES = 2;

/** MAX_CONCURRENT_TRANSCRIBE_JOBS loops; with `auto` (the fleet's slots) the tier offers AUTO_REMOTE_LANES. */
function remoteLanes(env: Env): number {
  const cap = workerConfig(env).maxConcurrentTranscribeJobs;
  return cap === "auto" ? AUTO_REMOTE_LANES : cap;
}

/**
 * Runs transcriptions for as long as the Dispatcher grants them: `lanes` loops side by side (the
 * Dispatcher's cap decides how many actually get work). Returns how many leases it ran.
 */
export async function drainRemoteTasks(env: Env, lanes = remoteLanes(env)): Promise<number> {
  const entry = remoteDefaultEntry(env);
  if (!entry) return 0;
  const counts = await Promise.all(Array.from({ length: lanes }, () => drainOneLane(env, entry)));
  return counts.reduce((a, b) => a + b, 0);
}

async function drainOneLane(env: Env, entry: RegistryEntry): Promise<number> {
  const health = NodeHealth.parse({
    node_id: EDGE_EXECUTOR.id,
    asr_loaded: true,
    asr_model: entry.id,
    models_ready: [entry.id],
  });
  let ran = 0;
  for (;;) {
    const ask = { node: health, capacity: 1, wait_ms: 0, kinds: ["transcribe" as const] };
    const [lease] = await leaseTasks(env, ask, EDGE_EXECUTOR);
    if (!lease) return ran;
    ran++;
    if (lease.kind === "transcribe") await runRemoteLease(env, entry, lease, health);
  }
}

/**
 * One leased transcription through the remote tier: progress 0 → 100 by heartbeats (which also keep the
 * lease and hear a cancel), then `complete`, or `fail` with the failure's code.
 */
export async function runRemoteLease(
  env: Env,
  entry: RegistryEntry,
  lease: LeaseOf<"transcribe">,
  health: NodeHealth,
): Promise<void> {
  const cancel = new AbortController();
  let progress = 0;
  let step = "fetching media";
  const beat = async () => {
    const answer = await heartbeatLease(env, lease.lease_id, EDGE_EXECUTOR, health, { progress, step });
    if (answer.cancel) cancel.abort(new ApiError("gone", "the task was cancelled"));
  };
  const report = async (share: number, nextStep: string) => {
    progress = Math.max(progress, Math.round(share));
    step = nextStep;
    await beat();
  };
  const timer = setInterval(() => {
    beat().catch((error: unknown) => {
      // A lost lease (410) stops the work; anything else is retried on the next beat.
      if (error instanceof ApiError) cancel.abort(error);
    });
  }, workerConfig(env).leaseTtlMs / 3);
  const started = Date.now();
  try {
    const audio = await readTaskMedia(
      env.MEDIA,
      lease.source,
      workerConfig(env).urlAllowlist,
      outboundFetch(env),
    );
    await report(5, "recognising");
    const ask = { language: lease.params.language, prompt: lease.params.context, task: lease.params.task };
    const transcript = await withRetries(
      () =>
        callRemoteTier(env, entry, audio, ask, cancel.signal, (share) =>
          report(5 + share * 90, "recognising"),
        ),
      cancel.signal,
    );
    const result = toTranscriptionResult(transcript, lease.params.model_id, Date.now() - started);
    await completeLease(env, lease.lease_id, EDGE_EXECUTOR, { kind: "transcribe", result });
  } catch (error) {
    if (cancel.signal.aborted || isGone(error)) return; // cancelled or lease lost: its task is another's now
    if (!(error instanceof RemoteTierError))
      console.error(JSON.stringify({ remote_tier: entry.id, error: String(error).slice(0, 300) }));
    // An unexpected error's text stays in the log, like a remote answer's (remote-failure.ts).
    const failure =
      error instanceof RemoteTierError
        ? error.failure
        : { code: "internal_error" as const, message: "the remote tier's executor failed unexpectedly" };
    await failLease(env, lease.lease_id, EDGE_EXECUTOR, failure).catch((failError: unknown) => {
      if (!isGone(failError)) throw failError;
    });
  } finally {
    clearInterval(timer);
  }
}

/** Calls again after a jittered backoff while the failure is transient, up to REMOTE_CALL_TRIES. */
async function withRetries(
  call: () => Promise<RemoteTranscript>,
  signal: AbortSignal,
): Promise<RemoteTranscript> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof RemoteTierError) || !error.transient || attempt >= REMOTE_CALL_TRIES)
        throw error;
      await pause(remoteBackoffMs(attempt), signal);
    }
  }
}

/**
 * The wait before try `attempt + 1`: half to all of min(1 s · 2^(attempt-1), 15 s).
 *
 * @example remoteBackoffMs(1, () => 1) // 1000
 */
export function remoteBackoffMs(attempt: number, random: () => number = Math.random): number {
  return backoffDelayMs(attempt, REMOTE_CALL_BACKOFF, random);
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function isGone(error: unknown): boolean {
  return error instanceof ApiError && error.code === "gone";
}
