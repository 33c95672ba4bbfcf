import type { LeaseAsk } from "../protocol/node.ts";
import { type TaskKind, type WorkClass, workClassOf } from "../protocol/task.ts";

/**
 * Which Dispatcher object a task, a node's lease ask or a lease belongs to. There is no deployment-wide
 * scheduler: one object per work class and model pool, so speech for one model, speech for another and
 * rendering never queue behind each other's calls. Plain functions: the Worker routes without a lookup.
 */

/**
 * One scheduler: the Dispatcher of one work class of one model pool, or with DISPATCHER_PARTITIONS > 1
 * one key-affine partition of a speech pool (`partition` absent: the pool's one object).
 */
export interface SchedulerKey {
  workClass: WorkClass;
  pool: string;
  partition?: number;
}

/**
 * A scheduler a lease ask waits on: the node's home partition of a partitioned pool, or the one object
 * of an unpartitioned one; only there do the node's slots count under `auto`. `sampled`: the other
 * partitions the node may steal from on this ask (none when unpartitioned).
 */
export type AskedScheduler = SchedulerKey & { sampled: number[] };

/** How many other partitions each ask samples to steal from (the power of two choices). */
export const STEAL_SAMPLES = 2;

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
  /** The API key that owns it: its partition (a key's tasks share one line, so its FIFO stays exact). */
  owner_key_id: string | null;
}

/**
 * The object name of a scheduler; `idFromName` of it is the object. A partition's is the pool's name
 * and `#<p>`, so one partition (the default) keeps the names of before partitions.
 */
export function schedulerName(key: SchedulerKey): string {
  const name = `${key.workClass}:${key.pool}`;
  return key.partition === undefined ? name : `${name}#${key.partition}`;
}

/**
 * The scheduler an object name names (`schedulerName`'s inverse); null for a name it never gives. A
 * Dispatcher reads its own name (`ctx.id.name`) to learn whether it is a partition, and of which pool.
 *
 * @example parseSchedulerName("speech:whisper-base#2") // { workClass: "speech", pool: "whisper-base", partition: 2 }
 */
export function parseSchedulerName(name: string): SchedulerKey | null {
  const match = /^(speech|render):(.+?)(?:#(\d+))?$/.exec(name);
  if (!match?.[1] || !match[2]) return null;
  const key: SchedulerKey = { workClass: match[1] as WorkClass, pool: match[2] };
  return match[3] === undefined ? key : { ...key, partition: Number(match[3]) };
}

/** The object name of a partitioned speech pool's root (durable-objects/dispatcher/pool-root.ts). */
export function poolRootName(pool: string): string {
  return `${schedulerName({ workClass: "speech", pool })}#root`;
}

/**
 * The partition of an owner key or a node id: FNV-1a of it, modulo the partition count. Stable across
 * isolates and deployments of the same count.
 *
 * @example partitionOf("key_ab12", 4) // always the same of 0..3
 */
export function partitionOf(id: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

/**
 * The scheduler of a task: its class, and for speech the model it runs with (`params.model_id`, the
 * registry default at enqueue; `defaultModel` for a record without one) and, with `partitions` > 1, the
 * partition of its owner key. Rendering is never partitioned (a cold pool).
 *
 * @example schedulerOfTask({ kind: "transcribe", params: { model_id: "whisper-base" }, owner_key_id: "k" }, "whisper-base") // speech:whisper-base
 */
export function schedulerOfTask(task: RoutedTask, defaultModel: string, partitions = 1): SchedulerKey {
  const workClass = workClassOf(task.kind);
  if (workClass === "render") return { workClass, pool: RENDER_POOL };
  const pool = modelIdOf(task.params) ?? defaultModel;
  if (partitions <= 1) return { workClass, pool };
  return { workClass, pool, partition: partitionOf(task.owner_key_id ?? "", partitions) };
}

/**
 * The schedulers a lease ask polls: for each class the node takes (`kinds`), its pools. A speech node
 * serves the models it reports ready (`models_ready`; an older node's `asr_model`, else the registry
 * default), so a task only ever goes to a node that has its model loaded.
 *
 * With `partitions` > 1 a speech pool is asked at the node's home partition (its node id's), with
 * STEAL_SAMPLES others drawn at random on every ask: the home sends it to steal from the busier of them
 * when it has nothing for it (the power of two choices: no ask polls them all).
 */
export function schedulersOfAsk(
  ask: Pick<LeaseAsk, "kinds" | "node">,
  defaultModel: string,
  partitions = 1,
  random: () => number = Math.random,
): AskedScheduler[] {
  const classes = new Set(ask.kinds.map(workClassOf));
  const keys: AskedScheduler[] = [];
  if (classes.has("speech")) {
    const reported = ask.node.models_ready.filter((id) => id !== "");
    const models = reported.length > 0 ? reported : [ask.node.asr_model || defaultModel];
    for (const pool of [...new Set(models)].slice(0, MAX_POOLS_PER_ASK)) {
      keys.push(...partitionsOfAsk(ask.node.node_id, partitions, random).map((key) => ({ ...key, pool })));
    }
  }
  if (classes.has("render")) keys.push({ workClass: "render", pool: RENDER_POOL, sampled: [] });
  return keys;
}

/** The node's home partition with STEAL_SAMPLES others drawn at random; the unpartitioned pool when there is one. */
function partitionsOfAsk(
  nodeId: string,
  partitions: number,
  random: () => number,
): Omit<AskedScheduler, "pool">[] {
  if (partitions <= 1) return [{ workClass: "speech", sampled: [] }];
  const home = partitionOf(nodeId, partitions);
  const others = Array.from({ length: partitions - 1 }, (_, i) => (home + 1 + i) % partitions);
  const sampled: number[] = [];
  while (sampled.length < STEAL_SAMPLES && others.length > 0)
    sampled.push(...others.splice(Math.floor(random() * others.length), 1));
  return [{ workClass: "speech", partition: home, sampled }];
}

/**
 * The node's home scheduler in the default model's speech pool: where a node serving no listed model
 * leaves its report (see askSchedulers).
 */
export function homeOfNode(nodeId: string, defaultModel: string, partitions = 1): SchedulerKey {
  if (partitions <= 1) return { workClass: "speech", pool: defaultModel };
  return { workClass: "speech", pool: defaultModel, partition: partitionOf(nodeId, partitions) };
}

/**
 * The schedulers a deployment's nodes poll, as far as the registry knows them: the speech pool of each
 * registry model (each of its partitions) and the render pool. /health and /models hear the fleet
 * through these.
 */
export function knownSchedulers(registryModels: readonly string[], partitions = 1): SchedulerKey[] {
  const indexes = partitions <= 1 ? [undefined] : Array.from({ length: partitions }, (_, p) => p);
  return [
    ...registryModels.flatMap((pool) =>
      indexes.map((partition): SchedulerKey => ({ workClass: "speech", pool, partition })),
    ),
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
