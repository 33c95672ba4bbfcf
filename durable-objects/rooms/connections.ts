/**
 * The TranslationRoom's sockets (all hibernatable): participants, engine streams (one per speaker
 * while it talks) and translate-only links. Each carries its role and owner in its attachment and in
 * tags, so the room finds them after hibernation without any memory of its own.
 */

import type { RoomServerMessage } from "../../protocol/rooms.ts";
import { attachmentOf, sendJson } from "../live/sockets.ts";

export const CLIENT_TAG = "client";
export const STREAM_TAG = "stream";
export const LINK_TAG = "link";
const clientTag = (clientId: string) => `c:${clientId}`;
const streamTag = (clientId: string) => `s:${clientId}`;
const linkTag = (linkId: string) => `l:${linkId}`;

export interface ClientConn {
  role: "client";
  client_id: string;
  connected_at: number;
  /** Joined or set as a listener: its audio is refused (absent in attachments made before roles). */
  listener?: boolean;
}
export interface StreamConn {
  role: "stream";
  /** The speaker whose audio this engine stream hears. */
  client_id: string;
  stream_id: string;
  joined_at: number;
  /** Since when the stream is finishing (`end` sent); null while it takes audio. */
  ending_since: number | null;
  /** Its engine has no TTS (it answered tts_unavailable): its finals are not spoken. */
  no_tts?: boolean;
  /** Its engine said `ended` while speech was still asked of it: let go once that is answered. */
  ended?: boolean;
}
export interface LinkConn {
  role: "link";
  link_id: string;
  joined_at: number;
}
export type RoomConn = ClientConn | StreamConn | LinkConn;

/** Accepts a participant's socket. */
export function acceptClient(
  ctx: DurableObjectState,
  ws: WebSocket,
  clientId: string,
  now: number,
  listener: boolean,
): void {
  ctx.acceptWebSocket(ws, [CLIENT_TAG, clientTag(clientId)]);
  ws.serializeAttachment({
    role: "client",
    client_id: clientId,
    connected_at: now,
    listener,
  } satisfies ClientConn);
}

/** Marks a participant's sockets as a listener's or a speaker's (the host changed its role). */
export function markListener(ctx: DurableObjectState, clientId: string, listener: boolean): void {
  for (const ws of clientSockets(ctx, clientId)) {
    const conn = connOf(ws);
    if (conn?.role === "client") ws.serializeAttachment({ ...conn, listener } satisfies ClientConn);
  }
}

/** Accepts an engine's socket for `clientId`'s speech. */
export function acceptStream(
  ctx: DurableObjectState,
  ws: WebSocket,
  clientId: string,
  streamId: string,
  now: number,
): void {
  ctx.acceptWebSocket(ws, [STREAM_TAG, streamTag(clientId)]);
  ws.serializeAttachment({
    role: "stream",
    client_id: clientId,
    stream_id: streamId,
    joined_at: now,
    ending_since: null,
  } satisfies StreamConn);
}

/** Accepts an engine's translate-only link. */
export function acceptLink(ctx: DurableObjectState, ws: WebSocket, linkId: string, now: number): void {
  ctx.acceptWebSocket(ws, [LINK_TAG, linkTag(linkId)]);
  ws.serializeAttachment({ role: "link", link_id: linkId, joined_at: now } satisfies LinkConn);
}

export const connOf = (ws: WebSocket): RoomConn | null => attachmentOf<RoomConn>(ws);

const open = (ws: WebSocket) => ws.readyState === WebSocket.OPEN;

/** Open participant sockets with their attachments. */
export function clients(ctx: DurableObjectState): { ws: WebSocket; conn: ClientConn }[] {
  return ctx.getWebSockets(CLIENT_TAG).flatMap((ws) => {
    const conn = connOf(ws);
    return open(ws) && conn?.role === "client" ? [{ ws, conn }] : [];
  });
}

/** The open socket(s) of one participant (two only for a moment, while a reconnect replaces one). */
export function clientSockets(ctx: DurableObjectState, clientId: string): WebSocket[] {
  return ctx.getWebSockets(clientTag(clientId)).filter(open);
}

/** Open engine streams, optionally of one speaker. */
export function streams(ctx: DurableObjectState, clientId?: string): { ws: WebSocket; conn: StreamConn }[] {
  return ctx.getWebSockets(clientId === undefined ? STREAM_TAG : streamTag(clientId)).flatMap((ws) => {
    const conn = connOf(ws);
    return open(ws) && conn?.role === "stream" ? [{ ws, conn }] : [];
  });
}

/** The stream taking `clientId`'s audio now (not one that is finishing), if any. */
export function liveStream(
  ctx: DurableObjectState,
  clientId: string,
): { ws: WebSocket; conn: StreamConn } | null {
  return streams(ctx, clientId).find((s) => s.conn.ending_since === null) ?? null;
}

/** The open socket(s) of a translate-only link. */
export function linkSockets(ctx: DurableObjectState, linkId: string): WebSocket[] {
  return ctx.getWebSockets(linkTag(linkId)).filter(open);
}

/** Sends one message to a participant (every open socket it has). */
export function tell(ctx: DurableObjectState, clientId: string, message: RoomServerMessage): void {
  for (const ws of clientSockets(ctx, clientId)) sendJson(ws, message);
}

/** Sends each participant the message `make` builds for it (null: nothing). */
export function tellEach(
  ctx: DurableObjectState,
  make: (clientId: string) => RoomServerMessage | null,
): void {
  for (const { ws, conn } of clients(ctx)) {
    const message = make(conn.client_id);
    if (message) sendJson(ws, message);
  }
}
