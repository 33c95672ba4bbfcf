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

/** The LiveHub (nodes' sockets, the session gate). One per deployment: the gate is global. */
export function liveHub(env: Env) {
  return env.LIVE_HUB.get(env.LIVE_HUB.idFromName("default"));
}

/** The LiveSession relaying stream `sessionId`. */
export function liveSession(env: Env, sessionId: string) {
  return env.LIVE_SESSION.get(env.LIVE_SESSION.idFromName(sessionId));
}
