import type { LeaseAsk } from "../protocol/node.ts";
import { type TaskKind, type WorkClass, workClassOf } from "../protocol/task.ts";

/**
 * Which Dispatcher object a task, a node's lease ask or a lease belongs to. There is no deployment-wide
 * scheduler: one object per work class and model pool, so speech for one model, speech for another and
 * rendering never queue behind each other's calls. Plain functions: the Worker routes without a lookup.
 */

/** One scheduler: the Dispatcher of one work class of one model pool. */
export interface SchedulerKey {
  workClass: WorkClass;
  pool: string;
}

/** Rendering loads no recognition model: its whole class is one pool. */
export const RENDER_POOL = "render";

/** The object that held every task and lease before schedulers were split by pool; see `issuerOfLease`. */
export const LEGACY_DISPATCHER_NAME = "default";

/** The most speech pools one lease ask waits on (a node serves a handful of models at most). */
export const MAX_POOLS_PER_ASK = 8;

/** What routing reads of a task: its kind and, for speech, the registry model it was enqueued for. */
export interface RoutedTask {
  kind: TaskKind;
  params: unknown;
}

/** The object name of a scheduler; `idFromName` of it is the object. */
export function schedulerName(key: SchedulerKey): string {
  return `${key.workClass}:${key.pool}`;
}

/**
 * The scheduler of a task: its class, and for speech the model it runs with (`params.model_id`, the
 * registry default at enqueue; `defaultModel` for a record without one).
 *
 * @example schedulerOfTask({ kind: "transcribe", params: { model_id: "whisper-base" } }, "whisper-base") // speech:whisper-base
 */
export function schedulerOfTask(task: RoutedTask, defaultModel: string): SchedulerKey {
  const workClass = workClassOf(task.kind);
  if (workClass === "render") return { workClass, pool: RENDER_POOL };
  return { workClass, pool: modelIdOf(task.params) ?? defaultModel };
}

/**
 * The schedulers a lease ask polls: for each class the node takes (`kinds`), its pools. A speech node
 * serves the models it reports ready (`models_ready`; an older node's `asr_model`, else the registry
 * default), so a task only ever goes to a node that has its model loaded.
 */
export function schedulersOfAsk(ask: Pick<LeaseAsk, "kinds" | "node">, defaultModel: string): SchedulerKey[] {
  const classes = new Set(ask.kinds.map(workClassOf));
  const keys: SchedulerKey[] = [];
  if (classes.has("speech")) {
    const reported = ask.node.models_ready.filter((id) => id !== "");
    const models = reported.length > 0 ? reported : [ask.node.asr_model || defaultModel];
    for (const pool of [...new Set(models)].slice(0, MAX_POOLS_PER_ASK))
      keys.push({ workClass: "speech", pool });
  }
  if (classes.has("render")) keys.push({ workClass: "render", pool: RENDER_POOL });
  return keys;
}

/**
 * The schedulers a deployment's nodes poll, as far as the registry knows them: the speech pool of each
 * registry model and the render pool. /health and /models hear the fleet through these.
 */
export function knownSchedulers(registryModels: readonly string[]): SchedulerKey[] {
  return [
    ...registryModels.map((pool): SchedulerKey => ({ workClass: "speech", pool })),
    { workClass: "render", pool: RENDER_POOL },
  ];
}

const LEASE_ID_SEPARATOR = ".";
const OBJECT_ID = /^[0-9a-f]{64}$/;

/**
 * A lease id names the object that issued it (its id, hex) ahead of a random part, so a heartbeat,
 * completion or failure goes straight to that object.
 *
 * @example leaseIdFor(ctx.id.toString()) // "8f3a…e1.4c0b…-…"
 */
export function leaseIdFor(issuer: string): string {
  return `${issuer}${LEASE_ID_SEPARATOR}${crypto.randomUUID()}`;
}

/**
 * The issuing object's id (hex) of a lease id; `LEGACY_DISPATCHER_NAME` for a bare id, which only the
 * one scheduler of before the split issued; null for one no Dispatcher issued.
 */
export function issuerOfLease(leaseId: string): { id: string } | { name: string } | null {
  const at = leaseId.indexOf(LEASE_ID_SEPARATOR);
  if (at < 0) return { name: LEGACY_DISPATCHER_NAME };
  const id = leaseId.slice(0, at);
  return OBJECT_ID.test(id) ? { id } : null;
}

function modelIdOf(params: unknown): string | null {
  if (typeof params !== "object" || params === null || !("model_id" in params)) return null;
  return typeof params.model_id === "string" && params.model_id !== "" ? params.model_id : null;
}
