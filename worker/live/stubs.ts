import { LIVE_HUB_NAME } from "../../durable-objects/live/live-hub.ts";

/** Stubs of the live Durable Objects: the one hub, one session object per stream, one room per conversation. */

/** The LiveHub (nodes' sockets, the session gate). One per deployment: the gate is global. */
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
