/** What the scheduler bench's Node driver, its Worker and its Dispatcher share (no runtime APIs). */
import type { NodeHealth } from "../../protocol/node.ts";
import { NODE_HEALTH } from "../../test/helpers/node-health.ts";

/** A fleet's state when an operation runs. */
export interface Fleet {
  /** Waiting transcriptions `w-<i>`, round-robin over the keys. */
  waiting: number;
  keys: number;
  /** Running leases `l-<i>` (of tasks `r-<i>`), round-robin over the nodes. */
  leases: number;
  nodes: number;
  /** Long-polls parked in the object (speech loops; parked only while nothing can be granted). */
  parked: number;
  /** MAX_CONCURRENT_TRANSCRIBE_JOBS for this object. */
  cap: number;
}

export type SchedulerOp =
  | "enqueue"
  | "enqueue_dup"
  | "lease"
  | "heartbeat"
  | "complete"
  | "stats"
  | "job"
  | "job_partition"
  | "root_job";

/**
 * `job_partition`: the deployment's jobs spread over this many key-affine partitions, and one
 * partition's share of each measured (DISPATCHER_PARTITIONS; docs/architecture.md, "Scale").
 */
export const BENCH_PARTITIONS = 4;

/**
 * `root_job`: the pool root's calls per scheduled job with a numeric cap and BENCH_PARTITIONS partitions,
 * at the cap's smallest chunk (one slot): a partition takes a slot before its grant and hands it back
 * when the lease ends (a larger cap's chunks divide this).
 */
export const ROOT_CALLS_PER_JOB = 2;

/** A LiveHub shard's fleet: registered nodes, the streams they run, and slots each has to spare. */
export interface LiveFleet {
  nodes: number;
  streams: number;
  spare: number;
}

/** API keys the live cases' streams are counted against, round-robin (one per call in flight). */
export const LIVE_KEYS = 16;

/** One /live request: `n` streams assigned and released (numbered from `offset`) on a hub holding `fleet`. */
export interface LiveRunBody {
  object: string;
  n: number;
  offset: number;
  fleet: LiveFleet;
}

/** One /run request: `n` operations of `op` (numbered from `offset`) on a Dispatcher holding `fleet`, or as many trivial writes. */
export interface RunBody {
  target: "dispatcher" | "baseline";
  object: string;
  op: SchedulerOp;
  n: number;
  offset: number;
  fleet: Fleet;
  /** `job_partition` with no work waiting: the fraction of the deployment's jobs that cross (1: every one). */
  crossingRate?: number;
}

/** What a batch asked of storage, in all its calls. */
export interface RunFigures {
  ops: number;
  statements: number;
  rowsRead: number;
  rowsWritten: number;
}

/** Simulated node `i`: its health as it reports it (a CPU node's, test/helpers/node-health.ts), and its identity. */
export const node = (i: number): NodeHealth => ({ ...NODE_HEALTH, node_id: `node-${i}` });
/** Simulated node `i`'s identity (platform/node-identity.ts NodeIdentity's shape; the Worker-side module is not imported here). */
export const identity = (i: number): { id: string; name: string } => ({
  id: `id-node-${i}`,
  name: `node-${i}`,
});

/** A job's life as the scheduler sees it: 60 s of work with a heartbeat every 5 s, polled every 2 s. */
export const JOB_HEARTBEATS = 12;
export const JOB_POLLS = 30;
