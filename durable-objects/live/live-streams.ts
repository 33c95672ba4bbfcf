/**
 * The live plane's calls as the Worker, the LiveSessions and the rooms make them, over its objects:
 * LIVE_HUB_SHARDS LiveHub shards (each the sockets of the node identities hashed to it, hub-shards.ts),
 * one LiveKeyStreams per API key (its streams and the shard of each), and the LiveGate (the live
 * microphone's one session at a time). No call reads every node or every stream: a stream asks two
 * shards' loads, its key's object, and the shard it goes to; its release goes to its key's object and
 * the shard that object names.
 */
import { workerConfig } from "../../platform/config.ts";
import { liveGate, liveHub, liveKeyStreams } from "../../platform/stubs.ts";
import { askOrder, byRoom, shardOfIdentity } from "./hub-shards.ts";
import { hubRequest } from "./live-hub.ts";
import { type ClaimRefusal, FULL, NO_ENGINE } from "./refusals.ts";
import type { DialledStream, StreamHost } from "./stream-dials.ts";

export type ClaimResult = { ok: true; session_id: string; node_id: string } | ClaimRefusal;
export type AssignResult = { ok: true; node_id: string } | ClaimRefusal;

/** What a stream asks for: which object the engine must reach, and what for. */
export type AssignAsk = {
  session_id: string;
  /** The object the stream lives in; the node is sent a path with the stream's secret, never this. */
  host: StreamHost;
} & (
  | {
      /** Takes an engine slot, counted against the API key's LIVE_MAX_STREAMS_PER_KEY until released. */
      mode: "stream";
      key_id: string;
    }
  /** A room history's translate-only link: no slot, no key, never released. */
  | { mode: "translate" }
);

/** What /health shows about live streaming. */
export interface LiveStatus {
  /** A live-mic session holds the gate. */
  busy: boolean;
  /** Connected nodes with a loaded streaming engine, over every shard: the ones a stream is given to. */
  engines: number;
  /** The models those engines registered with, one entry per engine. */
  models: string[];
}

/** The stream to let go: its id and the API key it was counted against. */
export interface StreamRelease {
  session_id: string;
  key_id: string;
  /** A live-mic session: it holds the gate too. */
  mic: boolean;
}

const BUSY: ClaimRefusal = {
  ok: false,
  reason: "busy",
  message: "another live session is in progress; try again later",
};

const keyLimit = (max: number): ClaimRefusal => ({
  ok: false,
  reason: "key_limit",
  message: `this API key already has ${max} live streams open (the most it may have); close one first`,
});

/**
 * A stream outside the live-mic gate (a single-device session, a room speaker) or a room's
 * translate-only link: hands it to an engine of the freer of two shards, which dials the stream's path.
 *
 * @example
 * const got = await assignStream(env, { session_id: id, host, mode: "stream", key_id });
 * if (!got.ok) tell(speaker, got.message);
 */
export async function assignStream(env: Env, ask: AssignAsk): Promise<AssignResult> {
  const { liveHubShards, liveMaxStreamsPerKey } = workerConfig(env);
  const needsSlot = ask.mode === "stream";
  const order = askOrder(liveHubShards);
  const loadsOf = (shards: number[]) =>
    Promise.all(shards.map(async (shard) => [shard, await liveHub(env, shard).load()] as const));
  const loads = await loadsOf(order.slice(0, 2));
  let shards = byRoom(loads, needsSlot);
  if (shards.length === 0 && order.length > 2) {
    const rest = await loadsOf(order.slice(2));
    loads.push(...rest);
    shards = byRoom(rest, needsSlot);
  }
  const [first] = shards;
  if (first === undefined) return loads.some(([, load]) => load.engines > 0) ? FULL : NO_ENGINE;
  const keyStreams = ask.mode === "stream" ? liveKeyStreams(env, ask.key_id) : null;
  if (keyStreams && !(await keyStreams.reserve(ask.session_id, first, liveMaxStreamsPerKey))) {
    return keyLimit(liveMaxStreamsPerKey);
  }
  let refusal = FULL;
  for (const shard of shards) {
    // the stream is counted on the shard about to take it, so its release finds it there
    if (keyStreams && shard !== first)
      await keyStreams.reserve(ask.session_id, shard, Number.MAX_SAFE_INTEGER);
    const got = await liveHub(env, shard).assign({
      session_id: ask.session_id,
      host: ask.host,
      mode: ask.mode,
    });
    if (got.ok) return got;
    refusal = got;
  }
  await keyStreams?.release(ask.session_id);
  return refusal;
}

/**
 * A live-mic (/ws) session: takes the gate, then an engine, or says why not.
 *
 * @example
 * const claim = await claimMic(env, { key_id: "key_1" });
 * if (claim.ok) await liveSession(env, claim.session_id).fetch(upgrade);
 */
export async function claimMic(env: Env, ask: { key_id: string }): Promise<ClaimResult> {
  const sessionId = `live_${crypto.randomUUID()}`;
  const gate = liveGate(env);
  if (!(await gate.claim({ session_id: sessionId, key_id: ask.key_id }))) return BUSY;
  const got = await assignStream(env, {
    session_id: sessionId,
    host: { object: "session" },
    mode: "stream",
    key_id: ask.key_id,
  }).catch(async (cause: unknown) => {
    await gate.release(sessionId);
    throw cause;
  });
  if (!got.ok) {
    await gate.release(sessionId);
    return got;
  }
  return { ok: true, session_id: sessionId, node_id: got.node_id };
}

/** Keeps a running live-mic session's claim alive; false tells the session it lost the gate. */
export async function renewMic(env: Env, sessionId: string): Promise<boolean> {
  return liveGate(env).renew(sessionId);
}

/**
 * A stream is over (its session finished, or its room let it go): its key's count and its engine's
 * slot are free at once, without waiting for the node's next report; a live-mic session opens the
 * gate. Idempotent.
 */
export async function releaseStream(env: Env, stream: StreamRelease): Promise<void> {
  const engineSlot = async () => {
    const shard = await liveKeyStreams(env, stream.key_id).release(stream.session_id);
    if (shard !== null) await liveHub(env, shard).release(stream.session_id);
  };
  await Promise.all([engineSlot(), stream.mic ? liveGate(env).release(stream.session_id) : undefined]);
}

/** The shard of a node identity's hub socket. */
function nodeShard(env: Env, identityId: string) {
  return liveHub(env, shardOfIdentity(identityId, workerConfig(env).liveHubShards));
}

/** A node's hub socket (node token and Upgrade already checked), to its identity's shard. */
export async function connectNode(env: Env, request: Request, identityId: string): Promise<Response> {
  return nodeShard(env, identityId).fetch(hubRequest(request, identityId));
}

/**
 * Where a node's dial-in for a stream leads: asked of the shard of the dialling identity, which is the
 * shard that assigned the stream if it is the identity the stream went to; null for anyone else.
 */
export async function dialStream(
  env: Env,
  dial: { streamId: string; secret: string },
  identityId: string,
): Promise<DialledStream | null> {
  return nodeShard(env, identityId).dial(dial.streamId, dial.secret, identityId);
}

/** What /health shows about live streaming, over every shard. */
export async function liveStatus(env: Env): Promise<LiveStatus> {
  const shards = Array.from({ length: workerConfig(env).liveHubShards }, (_, shard) => shard);
  const [busy, statuses] = await Promise.all([
    liveGate(env).busy(),
    Promise.all(shards.map((shard) => liveHub(env, shard).status())),
  ]);
  return {
    busy,
    engines: statuses.reduce((sum, status) => sum + status.engines, 0),
    models: statuses.flatMap((status) => status.models),
  };
}
