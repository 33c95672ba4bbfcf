import { isHeldBy, type LeaseRow } from "../../durable-objects/dispatcher/lease-table.ts";
import { workerConfig } from "../../platform/config.ts";
import { issuerOfLease, type RoutedTask } from "../../platform/dispatch-routing.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { dispatcherOfLease, dispatcherOfTask, jobState } from "../../platform/stubs.ts";
import {
  changeTaskStatus,
  failUnlessEnded,
  type ProgressReport,
  readTask,
  reportProgress,
  type TaskFailure,
} from "../../platform/task-store.ts";
import {
  type CompleteRequest,
  type HeartbeatResponse,
  Lease,
  type LeaseAsk,
  type NodeHealth,
  type NodeHeartbeatResponse,
  type PartialTranscript,
} from "../../protocol/node.ts";
import type { TaskRecord } from "../../protocol/task.ts";
import { CANCELLED_FAILURE, isRetryable } from "../../protocol/task-failure.ts";
import { ApiError } from "../errors.ts";
import { workerTaskKind } from "./kinds/index.ts";
import { askSchedulers } from "./lease-ask.ts";
import { checkOutputs, storeOutput } from "./outputs.ts";

/**
 * The Worker's half of the node protocol. Stores are always written before the Dispatcher lets go
 * of a lease, so a crash in between leaves a lease that expires and is retried, never a lost task.
 */

/**
 * Long-polls the Dispatcher and turns granted leases into work orders, marking the tasks processing.
 * The leases record the node identity that asked (its id and name); only it may use them.
 */
export async function leaseTasks(env: Env, ask: LeaseAsk, node: NodeIdentity): Promise<Lease[]> {
  const config = workerConfig(env);
  const waitMs = Math.min(ask.wait_ms, config.leaseWaitMaxMs);
  const rows = await askSchedulers(env, { ...ask, wait_ms: waitMs }, node, config.modelRegistry);
  const leases: Lease[] = [];
  for (const row of rows) {
    const lease = await startTask(env, row);
    if (lease) leases.push(lease);
  }
  return leases;
}

/** A duplicate hand-off of a task that already ended is dropped here, at the last moment. */
async function startTask(env: Env, row: LeaseRow): Promise<Lease | null> {
  const record = await changeTaskStatus(env, row.task_id, { status: "processing" });
  if (!record) {
    await issuer(env, row.lease_id).release(row.lease_id, "finished");
    return null;
  }
  return workOrder(record, row, workerConfig(env).maxAudioDurationSec);
}

function workOrder(record: TaskRecord, row: LeaseRow, maxAudioDurationSec: number): Lease {
  // parse() pairs the record's kind with its params' type (a union member), checking them once more.
  return Lease.parse({
    lease_id: row.lease_id,
    task_id: row.task_id,
    kind: record.kind,
    lane: record.lane,
    attempt: row.attempts,
    params: record.params,
    source: record.source,
    source_path: record.source.type === "object" ? `/internal/v1/leases/${row.lease_id}/source` : null,
    expires_at: row.expires_at,
    max_audio_duration_sec: maxAudioDurationSec,
  });
}

/**
 * A lease the node may still act on. Another node identity's lease answers like an unknown one (410),
 * so its existence does not leak. A cancelled one is ended here (task failed, lease released): 410.
 */
async function liveLease(env: Env, leaseId: string, node: NodeIdentity): Promise<LeaseRow> {
  const lease = await dispatcherOfLease(env, leaseId)?.lookup(leaseId);
  if (!lease || !isHeldBy(lease, node)) throw leaseGone();
  if (lease.cancelled) {
    await endCancelledLease(env, lease);
    throw new ApiError("gone", `the task was ${CANCELLED_FAILURE.message}; stop working on it`);
  }
  return lease;
}

/** The Dispatcher that issued a lease; a lease id none issued is gone like an expired one. */
function issuer(env: Env, leaseId: string) {
  const scheduler = dispatcherOfLease(env, leaseId);
  if (!scheduler) throw leaseGone();
  return scheduler;
}

function leaseGone(): ApiError {
  return new ApiError("gone", "lease expired or was released; the task went back to the queue or ended");
}

/**
 * Cancels a task whose synchronous caller went away: the Dispatcher flags its lease (the node stops on
 * its next heartbeat) or takes it out of the line, and stores it failed `cancelled` (Dispatcher.cancel
 * says in which order, and why). False when the task had already ended.
 *
 * @example request.signal.addEventListener("abort", () => ctx.waitUntil(cancelTask(env, record)));
 */
export async function cancelTask(env: Env, task: RoutedTask & { task_id: string }): Promise<boolean> {
  return dispatcherOfTask(env, task).cancel(task.task_id);
}

/** Ends a cancelled lease: the task failed (again, if a late write moved it), the lease let go. */
async function endCancelledLease(env: Env, lease: LeaseRow): Promise<void> {
  await failUnlessEnded(env, lease.task_id, CANCELLED_FAILURE);
  await issuer(env, lease.lease_id).release(lease.lease_id, "finished");
}

export async function heartbeatLease(
  env: Env,
  leaseId: string,
  node: NodeIdentity,
  health: NodeHealth,
  report: ProgressReport,
): Promise<HeartbeatResponse> {
  const [answer] = await heartbeatNode(env, node, health, [{ leaseId, report }]);
  if (!answer || answer.state === "gone") throw leaseGone();
  return { expires_at: answer.expires_at ?? 0, cancel: answer.state === "cancel" };
}

/**
 * Each lease's row after its issuer extended it (null: gone, or no Dispatcher issued it): one call per
 * Dispatcher the node holds leases of, in parallel.
 */
async function heartbeatByIssuer(
  env: Env,
  node: NodeIdentity,
  health: NodeHealth,
  leaseIds: readonly string[],
): Promise<(LeaseRow | null)[]> {
  const byIssuer = new Map<string, number[]>();
  leaseIds.forEach((leaseId, i) => {
    const issuer = issuerOfLease(leaseId);
    if (!issuer) return;
    const name = "name" in issuer ? `name:${issuer.name}` : `id:${issuer.id}`;
    byIssuer.set(name, [...(byIssuer.get(name) ?? []), i]);
  });
  const rows: (LeaseRow | null)[] = leaseIds.map(() => null);
  await Promise.all(
    [...byIssuer.values()].map(async (indexes) => {
      const first = leaseIds[indexes[0] ?? 0] ?? "";
      const scheduler = dispatcherOfLease(env, first);
      if (!scheduler) return;
      const extended = await scheduler.heartbeatNode(
        indexes.map((i) => leaseIds[i] ?? ""),
        health,
        node,
      );
      indexes.forEach((leaseIndex, k) => {
        rows[leaseIndex] = extended[k] ?? null;
      });
    }),
  );
  return rows;
}

/** One running task as a node heartbeat reports it. */
export interface LeaseReport {
  leaseId: string;
  report: ProgressReport;
}

/**
 * A node's heartbeat for every lease it holds: one Dispatcher call extends them all; a cancelled
 * lease is ended here, and each live task's progress goes to its own fast store.
 */
export async function heartbeatNode(
  env: Env,
  node: NodeIdentity,
  health: NodeHealth,
  reports: LeaseReport[],
): Promise<NodeHeartbeatResponse["leases"]> {
  const leases = await heartbeatByIssuer(
    env,
    node,
    health,
    reports.map((r) => r.leaseId),
  );
  return Promise.all(
    reports.map(async ({ leaseId, report }, i) => {
      const lease = leases[i];
      if (!lease) return { lease_id: leaseId, state: "gone" as const, expires_at: null };
      if (lease.cancelled) {
        await endCancelledLease(env, lease);
        return { lease_id: leaseId, state: "cancel" as const, expires_at: lease.expires_at };
      }
      await reportProgress(env, lease.task_id, report);
      return { lease_id: leaseId, state: "extended" as const, expires_at: lease.expires_at };
    }),
  );
}

/**
 * Stores a finished task's result and ends the lease. The completion must be of the lease's kind, which
 * decides what is kept of it (a transcription's decoder `detail` goes to the fast store only).
 */
export async function completeLease(
  env: Env,
  leaseId: string,
  node: NodeIdentity,
  completion: CompleteRequest,
): Promise<void> {
  const lease = await liveLease(env, leaseId, node);
  if (completion.kind !== lease.kind) {
    throw new ApiError("conflict", `lease ${leaseId} is a ${lease.kind} task, not ${completion.kind}`);
  }
  await checkOutputs(env, lease.task_id, completion);
  const result = await workerTaskKind(completion.kind).storedResult(env, lease.task_id, completion);
  const stored = await changeTaskStatus(env, lease.task_id, { status: "done", result });
  await issuer(env, leaseId).release(leaseId, "finished");
  // The task ended another way meanwhile (cancelled by its caller): the result is not kept.
  if (!stored) throw leaseGone();
}

/** Keeps a streaming task's partial text with its JobState, for the caller streaming it. */
export async function reportPartial(
  env: Env,
  leaseId: string,
  node: NodeIdentity,
  report: PartialTranscript,
): Promise<void> {
  const lease = await liveLease(env, leaseId, node);
  if (lease.kind !== "transcribe") {
    throw new ApiError("conflict", `lease ${leaseId} is a ${lease.kind} task: only transcriptions stream`);
  }
  await jobState(env, lease.task_id).appendPartial(report);
}

/** A failed attempt: back to the queue while the code is retryable and attempts remain, else failed. */
export async function failLease(
  env: Env,
  leaseId: string,
  node: NodeIdentity,
  failure: TaskFailure,
): Promise<{ requeued: boolean }> {
  const lease = await liveLease(env, leaseId, node);
  if (!isRetryable(failure.code) || lease.attempts >= workerConfig(env).maxTaskAttempts) {
    await changeTaskStatus(env, lease.task_id, { status: "failed", failure });
    await issuer(env, leaseId).release(leaseId, "finished");
    return { requeued: false };
  }
  // A task that ended meanwhile (cancelled by its caller) is not put back in line.
  const requeued = (await changeTaskStatus(env, lease.task_id, { status: "queued" })) !== null;
  await issuer(env, leaseId).release(leaseId, requeued ? "requeue" : "finished");
  return { requeued };
}

/** Stores an output file of the task behind a live lease (a render uploads its files before it completes). */
export async function storeLeaseOutput(
  env: Env,
  leaseId: string,
  node: NodeIdentity,
  name: string,
  request: Request,
) {
  const lease = await liveLease(env, leaseId, node);
  return storeOutput(env, lease.task_id, name, request);
}

/**
 * The object key of a live lease's known-speaker reference clip `index` (a compatible call's
 * known_speaker_references[], transcribe-params.ts); 404 when the task has no such clip.
 */
export async function leasedKnownSpeaker(env: Env, leaseId: string, node: NodeIdentity, index: number) {
  const lease = await liveLease(env, leaseId, node);
  const record = await readTask(env, lease.task_id);
  const known = record?.kind === "transcribe" ? record.params.known_speakers?.[index] : undefined;
  if (!known) throw new ApiError("not_found", `this task has no known speaker ${index}`);
  return known.object_key;
}

/** The task behind a live lease, for streaming its stored media. */
export async function leasedTaskSource(env: Env, leaseId: string, node: NodeIdentity) {
  const lease = await liveLease(env, leaseId, node);
  const record = await readTask(env, lease.task_id);
  if (!record) throw new ApiError("not_found", "task not found");
  return record.source;
}
