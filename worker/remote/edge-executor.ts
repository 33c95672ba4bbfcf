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
import { cleanRemoteTranscript, type RemoteTranscript, toTranscriptionResult } from "./remote-transcript.ts";
import { translateTranscript } from "./transcript-translation.ts";

/**
 * The Worker-side executor of the remote tier: it takes transcription leases from the Dispatcher like a
 * node does (same slots, fair order, MAX_CONCURRENT_TRANSCRIBE_JOBS, lease expiry and attempts), runs
 * each through the remote tier and reports through the same complete/fail/heartbeat functions as the
 * node routes, so results, progress, failure codes and history are the nodes' own. It runs in the
 * RemoteTier Durable Object's alarm (remote-tier-object.ts), never in the Queue consumer. An invocation
 * that dies mid-call leaves a lease that expires and goes back in line; the object's next alarm or the
 * cron sweep's kick runs it again.
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

/** What one bounded run of the executor did. */
export interface RemoteRun {
  /** Leases it ran. */
  ran: number;
  /** Whether it spent its budget (rather than finding the line empty): the caller runs it again. */
  workRemains: boolean;
}

/**
 * Runs transcriptions while the Dispatcher grants them, at most REMOTE_TIER_LEASES_PER_RUN in all,
 * `lanes` loops side by side (the Dispatcher's cap decides how many actually get work). The
 * budget keeps one invocation (a RemoteTier alarm, a sync call's waitUntil) far inside the platform's
 * wall-clock limits however long the line is.
 */
export async function runRemoteTasks(env: Env, { lanes }: { lanes?: number } = {}): Promise<RemoteRun> {
  const entry = remoteDefaultEntry(env);
  if (!entry) return { ran: 0, workRemains: false };
  const config = workerConfig(env);
  const budget = { left: config.remoteTierLeasesPerRun };
  const laneCount = lanes ?? remoteLanes(env);
  const counts = await Promise.all(Array.from({ length: laneCount }, () => runOneLane(env, entry, budget)));
  const ran = counts.reduce((a, b) => a + b, 0);
  return { ran, workRemains: budget.left <= 0 };
}

async function runOneLane(env: Env, entry: RegistryEntry, budget: { left: number }): Promise<number> {
  const health = NodeHealth.parse({
    node_id: EDGE_EXECUTOR.id,
    asr_loaded: true,
    asr_model: entry.id,
    models_ready: [entry.id],
  });
  let ran = 0;
  while (budget.left > 0) {
    budget.left--;
    const ask = { node: health, capacity: 1, wait_ms: 0, kinds: ["transcribe" as const] };
    const [lease] = await leaseTasks(env, ask, EDGE_EXECUTOR);
    if (!lease) {
      budget.left++;
      return ran;
    }
    ran++;
    if (lease.kind === "transcribe") await runRemoteLease(env, entry, lease, health);
  }
  return ran;
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
  try {
    const readStarted = Date.now();
    const audio = await readTaskMedia(
      env.MEDIA,
      lease.source,
      workerConfig(env).urlAllowlist,
      outboundFetch(env),
    );
    const downloadMs = Date.now() - readStarted;
    await report(5, "recognising");
    const ask = { language: lease.params.language, prompt: lease.params.context, task: lease.params.task };
    const { value: transcript, callMs } = await withRetries(
      () =>
        callRemoteTier(env, entry, audio, ask, cancel.signal, (share) =>
          report(5 + share * 90, "recognising"),
        ),
      cancel.signal,
    );
    const postStarted = Date.now();
    // Speech translated to English is English; otherwise the detected language, as on a node.
    const spoken = ask.task === "translate" ? { ...transcript, language: "en" } : transcript;
    const cleaned = await cleanRemoteTranscript(spoken);
    const translation =
      ask.task === "translate" ? null : await translateTranscript(env, cleaned.text, spoken.language);
    const timings = { downloadMs, asrMs: callMs, postMs: Date.now() - postStarted };
    const result = toTranscriptionResult(spoken, cleaned, lease.params.model_id, timings, translation);
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

/**
 * Calls again after a jittered backoff while the failure is transient, up to REMOTE_CALL_TRIES.
 * `callMs` is the time spent in the calls, tries that failed included, the backoff between them not.
 */
async function withRetries(
  call: () => Promise<RemoteTranscript>,
  signal: AbortSignal,
): Promise<{ value: RemoteTranscript; callMs: number }> {
  let callMs = 0;
  for (let attempt = 1; ; attempt++) {
    const started = Date.now();
    try {
      const value = await call();
      return { value, callMs: callMs + Date.now() - started };
    } catch (error) {
      callMs += Date.now() - started;
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
