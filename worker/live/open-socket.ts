import { sessionRequest } from "../../durable-objects/live/live-session.ts";
import {
  assignStream,
  claimMic,
  connectNode,
  dialStream,
  releaseStream,
} from "../../durable-objects/live/live-streams.ts";
import type { ClaimRefusal } from "../../durable-objects/live/refusals.ts";
import { closeSocket, sendJson } from "../../durable-objects/live/sockets.ts";
import { roomRequest } from "../../durable-objects/rooms/room-join.ts";
import type { NodeIdentity } from "../../platform/node-identity.ts";
import { liveSession, translationRoom } from "../../platform/stubs.ts";
import { LiveClose, type ServerMessage } from "../../protocol/live.ts";
import { ApiError } from "../errors.ts";

/** Throws 400 unless the request asks for a WebSocket upgrade. */
export function requireUpgrade(request: Request): void {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    throw new ApiError("bad_request", "this is a WebSocket endpoint: send Upgrade: websocket");
  }
}

/**
 * Starts a live session for an authenticated client: claims the gate, then an engine (live-streams.ts), then hands the upgrade to the session's own object. A refused client still gets a socket,
 * closed at once with 1013 and the reason, because a browser cannot read an HTTP refusal.
 */
export async function openLiveSocket(
  env: Env,
  request: Request,
  client: { keyId: string; language: string },
): Promise<Response> {
  requireUpgrade(request);
  const claim = await claimMic(env, { key_id: client.keyId });
  if (!claim.ok) return refusedSocket(claim);
  try {
    const join = sessionRequest(request, {
      role: "client",
      mode: "mic",
      session_id: claim.session_id,
      key_id: client.keyId,
      language: client.language,
    });
    return await liveSession(env, claim.session_id).fetch(join);
  } catch (cause) {
    await releaseStream(env, { session_id: claim.session_id, key_id: client.keyId, mic: true });
    throw cause;
  }
}

/**
 * Starts a single-device translation session: an engine with a free slot (no gate: several run at
 * once), then the upgrade goes to the session's own object, which waits for the client's `config`.
 * A refused client gets a socket closed at once with 1013 and the reason, as on /ws.
 */
export async function openSingleSocket(
  env: Env,
  request: Request,
  client: { keyId: string },
): Promise<Response> {
  requireUpgrade(request);
  const sessionId = `single_${crypto.randomUUID()}`;
  const got = await assignStream(env, {
    session_id: sessionId,
    host: { object: "session" },
    mode: "stream",
    key_id: client.keyId,
  });
  if (!got.ok) return refusedSocket(got);
  const join = sessionRequest(request, {
    role: "client",
    mode: "single",
    session_id: sessionId,
    key_id: client.keyId,
    language: "auto",
  });
  return liveSession(env, sessionId).fetch(join);
}

/** A node's hub socket (node token already checked), kept with the node identity that opened it. */
export async function connectNodeToHub(env: Env, request: Request, node: NodeIdentity): Promise<Response> {
  requireUpgrade(request);
  return connectNode(env, request, node.id);
}

/**
 * A node dialling in for a stream the hub assigned it (node token already checked): the hub says where
 * the stream lives, only to the identity it assigned it to and with the stream's secret; anyone else
 * gets 404, whatever the reason.
 */
export async function connectNodeToStream(
  env: Env,
  request: Request,
  node: NodeIdentity,
  dial: { streamId: string; secret: string },
): Promise<Response> {
  requireUpgrade(request);
  const stream = await dialStream(env, dial, node.id);
  if (!stream) throw new ApiError("not_found", "no such stream");
  if (stream.host.object === "room") {
    return translationRoom(env, stream.host.conversation_id).fetch(
      roomRequest(request, { role: "stream", stream_id: stream.stream_id }),
    );
  }
  const join = sessionRequest(request, { role: "node", session_id: stream.stream_id });
  return liveSession(env, stream.stream_id).fetch(join);
}

/**
 * An accepted socket that says why it cannot serve, then closes: 4429 when the key holds its most
 * streams, 1013 (try again later) otherwise.
 */
function refusedSocket(refusal: ClaimRefusal): Response {
  const pair = new WebSocketPair();
  pair[1].accept();
  const { message } = refusal;
  sendJson(pair[1], { type: "error", message } satisfies ServerMessage);
  const code = refusal.reason === "key_limit" ? LiveClose.tooManyStreams : LiveClose.tryAgainLater;
  closeSocket(pair[1], code, message);
  return new Response(null, { status: 101, webSocket: pair[0] });
}
