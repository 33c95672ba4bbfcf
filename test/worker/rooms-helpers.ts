/**
 * Clients for the room tests, through the Worker's real fetch handler: sessions over REST, room
 * sockets, and PCM frames loud or quiet enough for the room's voice gate.
 */
import { expect } from "vitest";
import type { RoomServerMessage } from "../../protocol/rooms.ts";
import { bearer, call } from "./helpers.ts";
import { type TestSocket, upgrade } from "./live-helpers.ts";

/** Creates a session; returns its conversation id. */
export async function newSession(
  key: string,
  body: { language: string; translate_language: string } = { language: "en", translate_language: "es" },
): Promise<string> {
  return (await newHostedSession(key, body)).conversation_id;
}

/** Creates a session; returns the whole create response (with its host token). */
export async function newHostedSession(
  key: string,
  body: { language: string; translate_language: string } = { language: "en", translate_language: "es" },
): Promise<{ conversation_id: string; join_url: string; host_token: string }> {
  const response = await call("/api/v1/session/create", {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { conversation_id: string; join_url: string; host_token: string };
}

/** A host control call (POST /api/v1/session/{id}/control) with the given credential headers. */
export function hostControl(
  conversationId: string,
  credential: Record<string, string>,
  body: { action: string; client_id?: string },
): Promise<Response> {
  return call(`/api/v1/session/${conversationId}/control`, {
    method: "POST",
    headers: { ...credential, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Opens a room socket (upgrade accepted: refusals are close codes, read from `closed`). */
export async function openRoom(conversationId: string, query: Record<string, string>): Promise<TestSocket> {
  const { socket, response } = await upgrade(`/api/v1/ws/${conversationId}?${new URLSearchParams(query)}`);
  if (!socket) throw new Error(`room upgrade answered ${response.status}: ${await response.text()}`);
  return socket;
}

/** The next room message (JSON). */
export const next = (socket: TestSocket, timeoutMs?: number) => socket.json<RoomServerMessage>(timeoutMs);

/** Reads messages until one of `type` arrives; returns it and what came before. */
export async function until<T extends RoomServerMessage["type"]>(
  socket: TestSocket,
  type: T,
  timeoutMs = 3_000,
): Promise<{ found: Extract<RoomServerMessage, { type: T }>; before: RoomServerMessage[] }> {
  const before: RoomServerMessage[] = [];
  for (;;) {
    const message = await next(socket, timeoutMs);
    if (message.type === type) return { found: message as Extract<RoomServerMessage, { type: T }>, before };
    before.push(message);
  }
}

/**
 * Joins and reads the join messages (welcome, user_joined, partner_language); `resumeToken` is the
 * participant's secret from its welcome (pass it as `resume` to reconnect into the same place).
 */
export async function join(
  conversationId: string,
  query: Record<string, string>,
): Promise<{ socket: TestSocket; clientId: string; partner: string; resumeToken: string }> {
  const socket = await openRoom(conversationId, query);
  const welcome = await next(socket);
  if (welcome.type !== "welcome") throw new Error(`expected welcome, got ${JSON.stringify(welcome)}`);
  const { found } = await until(socket, "partner_language");
  return { socket, clientId: welcome.client_id, partner: found.lang, resumeToken: welcome.resume_token };
}

/** Asserts no message arrives within `ms`. */
export async function silent(socket: TestSocket, ms = 300): Promise<void> {
  await expect(socket.next(ms)).rejects.toThrow(/no frame within/);
}

/** 100 ms of PCM16: a loud 440 Hz tone (≈ -13 dBFS), or digital silence. */
export function pcmFrame(loud: boolean, samples = 1600): ArrayBuffer {
  const pcm = new Int16Array(samples);
  if (loud)
    for (let i = 0; i < samples; i++)
      pcm[i] = Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * i) / 16000));
  return pcm.buffer;
}
