import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { workerConfig } from "../../platform/config.ts";
import { db } from "../../platform/db.ts";
import { knownSchedulers } from "../../platform/dispatch-routing.ts";
import { apiKeys, nodeIdentities } from "../../platform/schema.ts";
import { dispatcher, dispatcherOfTask, poolRoot } from "../../platform/stubs.ts";
import { createTask, failUnlessEnded, readTask } from "../../platform/task-store.ts";
import type { Lane, TaskRecordOf, WorkClass } from "../../protocol/task.ts";
import { CANCELLED_FAILURE } from "../../protocol/task-failure.ts";
import type { TranscribeParams } from "../../protocol/transcribe-params.ts";
import { generateApiKey, generateNodeToken } from "../../worker/auth/key-material.ts";
import worker from "../../worker/index.ts";
import { submitTask } from "../../worker/tasks/submit.ts";

export const NODE_TOKEN = "test-node-token";
/** The signing secret vitest.config.mts gives the tested Worker (a deployment may leave it unset). */
export const UPLOAD_SIGNING_SECRET = "test-upload-signing-secret";

/** Sends a request through the Worker's real fetch handler. */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://voxedge.test${path}`, init));
}

/**
 * Waits, when the wall-clock minute ends within `marginMs`, for the next one to begin. The emulated
 * rate limiters count in fixed windows of that minute (miniflare: `Math.floor(Date.now() / 60 s)`), so
 * a test that counts a key's requests up to a limit must send them all inside one window.
 */
export async function insideOneRateWindow(marginMs = 15_000): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 60_000 - marginMs) await scheduler.wait(60_000 - intoMinute + 50);
}

/** Time a test that calls `insideOneRateWindow` may take: the wait, plus its own requests. */
export const RATE_WINDOW_TEST_TIMEOUT_MS = 30_000;

/** Creates an API key in D1 the way the keys CLI does and returns its id and secret. */
export async function createKey(name = "test"): Promise<{ id: string; key: string }> {
  const made = await generateApiKey();
  await db(env)
    .insert(apiKeys)
    .values({ id: made.id, name, keyHash: made.hash, prefix: made.prefix, createdAt: Date.now() });
  return { id: made.id, key: made.secret };
}

/** The test's env with a D1 binding that records every statement prepared on it. */
export function countingEnv(): { env: Env; statements: string[] } {
  const statements: string[] = [];
  const DB = new Proxy(env.DB, {
    get(target, property) {
      if (property === "prepare") {
        return (query: string) => {
          statements.push(query);
          return target.prepare(query);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { env: Object.assign(Object.create(env), { DB }) as Env, statements };
}

/** Creates a per-node identity in D1 the way the nodes CLI does and returns its id and token. */
export async function createNode(name = "test-node"): Promise<{ id: string; token: string }> {
  const made = await generateNodeToken();
  await db(env)
    .insert(nodeIdentities)
    .values({ id: made.id, name, tokenHash: made.hash, prefix: made.prefix, createdAt: Date.now() });
  return { id: made.id, token: made.secret };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** The params an async transcription of the default model stores. */
export const TRANSCRIBE_PARAMS: TranscribeParams = {
  model_id: "whisper-base",
  language: null,
  context: "",
  task: "transcribe",
  word_timestamps: false,
  object_key: null,
  file_url: null,
};

/**
 * Transcriptions a test file submits and ends after each test: each submit also goes to the real
 * Queue, whose delivery may come late, and a delivery that arrives after the next test's reset finds
 * its task ended and hands nothing over. `afterEach(endSubmitted)` in the file.
 */
export function submissionsEndedAfterEach() {
  const submitted: string[] = [];
  return {
    submit: async (ownerKeyId: string) => {
      const task = await submitTranscription(ownerKeyId);
      submitted.push(task.task_id);
      return task;
    },
    endSubmitted: async () => {
      for (const taskId of submitted.splice(0)) await failUnlessEnded(env, taskId, CANCELLED_FAILURE);
    },
  };
}

/** Creates a transcription task for `ownerKeyId` and hands it to the queue consumer directly. */
export async function submitTranscription(
  ownerKeyId: string,
  options: { lane?: Lane; params?: Partial<TranscribeParams> } = {},
) {
  return submitTask(env, {
    ownerKeyId,
    kind: "transcribe",
    lane: options.lane ?? "batch",
    params: { ...TRANSCRIBE_PARAMS, ...options.params },
    source: { type: "none" },
  });
}

/**
 * Empties the Dispatchers (each registry model's speech pool or its partitions, the render pool: waiting line, leases,
 * memory of finished tasks, nodes) between tests, then restarts them so their in-memory lines are read
 * back from the emptied tables.
 */
export async function resetDispatcher(): Promise<void> {
  const { modelRegistry, dispatcherPartitions } = workerConfig(env);
  const models = modelRegistry.models.map((entry) => entry.id);
  for (const key of knownSchedulers(models, dispatcherPartitions)) await resetScheduler(dispatcher(env, key));
  if (dispatcherPartitions > 1) for (const pool of models) await resetPoolRoot(poolRoot(env, pool));
}

/** Empties a partitioned pool's root (its budgets and summaries) and restarts it. */
async function resetPoolRoot(stub: ReturnType<typeof poolRoot>): Promise<void> {
  await runInDurableObject(stub, async (_instance, state) => {
    for (const table of ["budgets", "summaries"]) state.storage.sql.exec(`DELETE FROM ${table}`);
    await state.storage.deleteAlarm();
  });
  await runInDurableObject(stub, (_instance, state) => state.abort("reset")).catch(() => undefined);
}

/** Empties one Dispatcher and restarts it (only it: every object would end other files' live sessions). */
export async function resetScheduler(stub: ReturnType<typeof dispatcher>): Promise<void> {
  await runInDurableObject(stub, async (_instance, state) => {
    for (const table of ["waiting", "leases", "finished", "owners", "nodes"]) {
      state.storage.sql.exec(`DELETE FROM ${table}`);
    }
    await state.storage.deleteAlarm();
  });
  await runInDurableObject(stub, (_instance, state) => state.abort("reset")).catch(() => undefined);
}

/** The Dispatcher of a work class: for speech, the registry default model's pool. */
export function dispatcherStub(workClass: WorkClass = "speech") {
  const kind = workClass === "speech" ? "transcribe" : "slide";
  return dispatcherOfTask(env, { kind, params: {}, owner_key_id: null });
}

/**
 * Moves every lease deadline of a Dispatcher into the past, written behind its back, and restarts it
 * so it reads them (it keeps its leases' deadlines in memory); sets an alarm a minute ahead unless
 * `keepAlarm`, for the caller to run. Returns a new stub: the old one broke with the restart.
 */
export async function pastLeaseDeadlines(
  stub: ReturnType<typeof dispatcher>,
  keepAlarm = false,
): Promise<ReturnType<typeof dispatcher>> {
  await runInDurableObject(stub, async (_instance, state) => {
    state.storage.sql.exec("UPDATE leases SET expires_at = ?", Date.now() - 1);
    if (!keepAlarm) await state.storage.setAlarm(Date.now() + 60_000);
  });
  await runInDurableObject(stub, (_instance, state) => state.abort("deadlines moved")).catch(() => undefined);
  return env.DISPATCHER.get(stub.id);
}

/** Moves every lease's deadline into the past and runs the Dispatchers' alarms, as if their nodes died. */
export async function expireAllLeases(): Promise<void> {
  let ran = false;
  for (const stub of [dispatcherStub("speech"), dispatcherStub("render")]) {
    ran = (await runDurableObjectAlarm(await pastLeaseDeadlines(stub))) || ran;
  }
  if (!ran) throw new Error("the Dispatcher had no alarm to run");
}

/** Delivers task messages to the Worker's queue handler, as the Queue would. */
export async function deliver(taskIds: string[], queue = "voxedge-tasks") {
  const batch = createMessageBatch(
    queue,
    taskIds.map((id, i) => ({
      id: `msg-${i}-${id}`,
      timestamp: new Date(),
      attempts: 1,
      body: { task_id: id, kind: "transcribe" },
    })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/** Creates a task in both stores without sending it to the Queue (tests deliver it themselves). */
export async function createTranscription(ownerKeyId: string, lane: Lane = "batch") {
  return createTask(env, {
    ownerKeyId,
    kind: "transcribe",
    lane,
    params: TRANSCRIBE_PARAMS,
    source: { type: "none" },
  });
}

/** A stored transcription task (failing the test if the id names another kind). */
export async function readTranscription(taskId: string): Promise<TaskRecordOf<"transcribe"> | null> {
  const record = await readTask(env, taskId);
  if (record && record.kind !== "transcribe") throw new Error(`${taskId} is a ${record.kind} task`);
  return record;
}
