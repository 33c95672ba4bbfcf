/**
 * The one place Durable Object stubs are built. Each object is named, never random: the name is the
 * unit of coordination (a task, a stream, the deployment's scheduler or hub).
 */

/** The fast store of task `taskId` (its current record, waiters for its end). */
export function jobState(env: Env, taskId: string) {
  return env.JOB_STATE.get(env.JOB_STATE.idFromName(taskId));
}

/** The Dispatcher of the default model pool (one object; shard by pool if one outgrows it). */
export function dispatcher(env: Env) {
  return env.DISPATCHER.get(env.DISPATCHER.idFromName("default"));
}

/** The name of the one LiveHub of a deployment. */
export const LIVE_HUB_NAME = "default";

/** The LiveHub (nodes' sockets, the session gate, engine capacity). One per deployment. */
export function liveHub(env: Env) {
  return env.LIVE_HUB.get(env.LIVE_HUB.idFromName(LIVE_HUB_NAME));
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
