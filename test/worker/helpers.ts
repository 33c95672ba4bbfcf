import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runInDurableObject,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import type { Lane } from "../../protocol/task.ts";
import { generateApiKey } from "../../worker/auth/key-material.ts";
import { db } from "../../worker/db/client.ts";
import { apiKeys } from "../../worker/db/schema.ts";
import worker from "../../worker/index.ts";
import { submitTask } from "../../worker/tasks/submit.ts";
import { createTask } from "../../worker/tasks/task-store.ts";

export const NODE_TOKEN = "test-node-token";

/** Sends a request through the Worker's real fetch handler. */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://voxedge.test${path}`, init));
}

/** Creates an API key in D1 the way the keys CLI does and returns its id and secret. */
export async function createKey(name = "test"): Promise<{ id: string; key: string }> {
  const made = await generateApiKey();
  await db(env)
    .insert(apiKeys)
    .values({ id: made.id, name, keyHash: made.keyHash, prefix: made.prefix, createdAt: Date.now() });
  return { id: made.id, key: made.key };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** Creates a transcription task for `ownerKeyId` and hands it to the queue consumer directly. */
export async function submitTranscription(
  ownerKeyId: string,
  options: { lane?: Lane; params?: Record<string, unknown> } = {},
) {
  return submitTask(env, {
    ownerKeyId,
    kind: "transcribe",
    lane: options.lane ?? "batch",
    params: options.params ?? { model_id: "whisper-base", language: null, context: "" },
    source: { type: "none" },
  });
}

/** Empties the Dispatcher (waiting line, leases, memory of finished tasks, nodes) between tests. */
export async function resetDispatcher(): Promise<void> {
  const stub = env.DISPATCHER.get(env.DISPATCHER.idFromName("default"));
  await runInDurableObject(stub, async (_instance, state) => {
    for (const table of ["waiting", "leases", "finished", "owners", "nodes", "counters"]) {
      state.storage.sql.exec(`DELETE FROM ${table}`);
    }
    await state.storage.deleteAlarm();
  });
}

export function dispatcherStub() {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName("default"));
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
    params: { model_id: "whisper-base", language: null, context: "" },
    source: { type: "none" },
  });
}
