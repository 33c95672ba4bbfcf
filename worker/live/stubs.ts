/** Stubs of the live Durable Objects: the one hub, and one session object per stream. */

/** The LiveHub (nodes' sockets, the session gate). One per deployment: the gate is global. */
export function liveHub(env: Env) {
  return env.LIVE_HUB.get(env.LIVE_HUB.idFromName("default"));
}

/** The LiveSession relaying stream `sessionId`. */
export function liveSession(env: Env, sessionId: string) {
  return env.LIVE_SESSION.get(env.LIVE_SESSION.idFromName(sessionId));
}
