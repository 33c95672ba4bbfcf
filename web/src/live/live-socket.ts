import type { LiveServerMessage } from "../api/types.ts";

/** What the live session reports to the page: the server's messages, then how the socket closed. */
export type LiveEvent =
  | LiveServerMessage
  | { type: "closed"; code: number; reason: string; wasReady: boolean };

/** Close codes of /ws (docs/api.md, protocol/live.ts LiveClose). */
export const CLOSE = {
  normal: 1000,
  idle: 1001,
  abnormal: 1006,
  tooBig: 1009,
  engineLost: 1011,
  busy: 1013,
} as const;

/** Audio held while the socket opens (before `ready`): about 3 s of 100 ms chunks. */
const MAX_PENDING_CHUNKS = 30;

/**
 * One /ws session from the browser. The key goes in the `api_key` query parameter (a browser WebSocket
 * cannot set headers). Audio given before `ready` is held (up to ~3 s) and sent on `ready`, so the first
 * words are not dropped; `end()` asks for the last finals, after which the server closes with 1000.
 *
 * @example
 * const live = new LiveSocket(location.origin, key, "en", (event) => render(event));
 * mic.onChunk = (pcm) => live.send(pcm);
 */
export class LiveSocket {
  private readonly ws: WebSocket;
  private ready = false;
  private pending: ArrayBuffer[] = [];

  constructor(origin: string, key: string, language: string, onEvent: (event: LiveEvent) => void) {
    const url = new URL("/ws", origin);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("language", language);
    url.searchParams.set("api_key", key);
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      let message: LiveServerMessage;
      try {
        message = JSON.parse(event.data) as LiveServerMessage;
      } catch {
        return;
      }
      if (message.type === "ready") {
        this.ready = true;
        for (const chunk of this.pending) this.ws.send(chunk);
        this.pending = [];
      }
      onEvent(message);
    };
    this.ws.onclose = (event) =>
      onEvent({ type: "closed", code: event.code, reason: event.reason, wasReady: this.ready });
  }

  send(pcm: ArrayBuffer): void {
    if (this.ws.readyState !== WebSocket.OPEN || !this.ready) {
      if (this.ws.readyState <= WebSocket.OPEN) {
        this.pending.push(pcm);
        if (this.pending.length > MAX_PENDING_CHUNKS) this.pending.shift();
      }
      return;
    }
    this.ws.send(pcm);
  }

  /** No more audio: the server finishes the utterance, sends its finals and closes with 1000. */
  end(): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: "end" }));
    else this.ws.close();
  }

  close(): void {
    this.ws.close(1000, "client closed");
  }
}
