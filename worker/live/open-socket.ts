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
import type { RealtimeWire } from "../../protocol/realtime.ts";
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

/**
 * Starts an OpenAI Realtime transcription session: an engine with a free slot (no gate), then the
 * upgrade goes to the session's own object. `protocol` is the subprotocol to accept (a browser that
 * offered `realtime` with its credential must see it chosen, or it drops the socket).
 */
export async function openRealtimeSocket(
  env: Env,
  request: Request,
  client: { keyId: string; wire: RealtimeWire; model: string; protocol: string | null },
): Promise<Response> {
  requireUpgrade(request);
  const sessionId = `sess_${crypto.randomUUID().replaceAll("-", "")}`;
  const got = await assignStream(env, {
    session_id: sessionId,
    host: { object: "session" },
    mode: "stream",
    key_id: client.keyId,
  });
  const upgraded = got.ok
    ? await liveSession(env, sessionId).fetch(
        sessionRequest(request, {
          role: "client",
          mode: "realtime",
          session_id: sessionId,
          key_id: client.keyId,
          language: "auto",
          wire: client.wire,
          model: client.model,
        }),
      )
    : refusedSocket(got, realtimeRefusal);
  if (!client.protocol || !upgraded.webSocket) return upgraded;
  return new Response(null, {
    status: 101,
    webSocket: upgraded.webSocket,
    headers: { "sec-websocket-protocol": client.protocol },
  });
}

/** A refusal as a realtime client reads errors. */
function realtimeRefusal(message: string): unknown {
  return {
    type: "error",
    event_id: "event_refused",
    error: { type: "server_error", code: "unavailable", message, param: null, event_id: null },
  };
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
function refusedSocket(
  refusal: ClaimRefusal,
  errorOf: (message: string) => unknown = (message) => ({ type: "error", message }) satisfies ServerMessage,
): Response {
  const pair = new WebSocketPair();
  pair[1].accept();
  const { message } = refusal;
  sendJson(pair[1], errorOf(message));
  const code = refusal.reason === "key_limit" ? LiveClose.tooManyStreams : LiveClose.tryAgainLater;
  closeSocket(pair[1], code, message);
  return new Response(null, { status: 101, webSocket: pair[0] });
}
