import { workerConfig } from "./config.ts";
import {
  issuerOfLease,
  poolRootName,
  type RoutedTask,
  type SchedulerKey,
  schedulerName,
  schedulerOfTask,
} from "./dispatch-routing.ts";

/**
 * The one place Durable Object stubs are built. Each object is named, never random: the name is the
 * unit of coordination (a task, a stream, the deployment's scheduler or hub).
 */

/** The fast store of task `taskId` (its current record, waiters for its end). */
export function jobState(env: Env, taskId: string) {
  return env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId));
}

/** The Dispatcher of one work class of one model pool (platform/dispatch-routing.ts says which). */
export function dispatcher(env: Env, key: SchedulerKey) {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName(schedulerName(key)));
}

/** The root of a partitioned speech pool: its numeric cap's slot budgets and its queue figures. */
export function poolRoot(env: Env, pool: string) {
  return env.POOL_ROOT.get(env.POOL_ROOT.idFromName(poolRootName(pool)));
}

/** The Dispatcher that schedules a task (by its kind, model and, when partitioned, owner key). */
export function dispatcherOfTask(env: Env, task: RoutedTask) {
  const { modelRegistry, dispatcherPartitions } = workerConfig(env);
  return dispatcher(env, schedulerOfTask(task, modelRegistry.default_model, dispatcherPartitions));
}

/** The Dispatcher that issued a lease, read off its id; null for an id no Dispatcher issued. */
export function dispatcherOfLease(env: Env, leaseId: string) {
  const issuer = issuerOfLease(leaseId);
  if (!issuer) return null;
  if ("name" in issuer) return env.DISPATCHER.get(env.DISPATCHER.idFromName(issuer.name));
  try {
    return env.DISPATCHER.get(env.DISPATCHER.idFromString(issuer.id));
  } catch {
    // Hex of the right length that is not an id of this namespace: a made-up lease id.
    return null;
  }
}

/** LiveHub shard `shard` of LIVE_HUB_SHARDS (its nodes' sockets and engine capacity). */
export function liveHub(env: Env, shard: number) {
  return env.LIVE_HUB.get(env.LIVE_HUB.idFromName(`shard-${shard}`));
}

/** The live microphone's one-session-at-a-time gate (/ws). One per deployment. */
export function liveGate(env: Env) {
  return env.LIVE_GATE.get(env.LIVE_GATE.idFromName("default"));
}

/** The live streams API key `keyId` holds, and the hub shard of each. */
export function liveKeyStreams(env: Env, keyId: string) {
  return env.LIVE_KEY_STREAMS.get(env.LIVE_KEY_STREAMS.idFromName(keyId));
}

/** The LiveSession relaying stream `sessionId`. */
export function liveSession(env: Env, sessionId: string) {
  return env.LIVE_SESSION.get(env.LIVE_SESSION.idFromName(sessionId));
}

/** The TranslationRoom of a multi-device conversation (its id is the conversation's UUID). */
export function translationRoom(env: Env, conversationId: string) {
  return env.TRANSLATION_ROOM.get(env.TRANSLATION_ROOM.idFromName(conversationId));
}

/** The executor of remote model pool `poolId` (a registry `http` entry's id). */
export function remoteTier(env: Env, poolId: string) {
  return env.REMOTE_TIER.get(env.REMOTE_TIER.idFromName(poolId));
}

/** The HistoryCache of API key `keyId` (its newest history page, in memory). */
export function historyCache(env: Env, keyId: string) {
  return env.HISTORY_CACHE.get(env.HISTORY_CACHE.idFromName(keyId));
}
