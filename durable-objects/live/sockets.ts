/** Small WebSocket helpers the live Durable Objects share: sends and closes that never throw. */

/** RFC 6455 caps a close reason at 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

/** Sends a JSON message; false when the socket is no longer open (the peer went away). */
export function sendJson(ws: WebSocket, message: unknown): boolean {
  return sendRaw(ws, JSON.stringify(message));
}

/** Sends a text or binary frame as is; false when the socket is no longer open. */
export function sendRaw(ws: WebSocket, data: string | ArrayBuffer): boolean {
  if (ws.readyState !== WebSocket.OPEN) return false;
  try {
    ws.send(data);
    return true;
  } catch {
    return false;
  }
}

/**
 * Closes a socket, or answers a peer's close. 1005 and 1006 are reserved (they only describe a close
 * that carried no code or none at all; sending them throws), so they become 1000.
 */
export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  const sendable = code === 1005 || code === 1006 ? 1000 : code;
  try {
    ws.close(sendable, truncateReason(reason));
  } catch {
    // already closed: nothing to answer
  }
}

function truncateReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  if (bytes.length <= MAX_REASON_BYTES) return reason;
  // cut on a character boundary: decode leniently and drop a trailing replacement character
  return new TextDecoder().decode(bytes.subarray(0, MAX_REASON_BYTES)).replace(/\uFFFD$/, "");
}

/** A socket's attachment, typed by the caller (each object defines its own attachment union). */
export function attachmentOf<T>(ws: WebSocket): T | null {
  return (ws.deserializeAttachment() as T | null) ?? null;
}
