/**
 * A WebSocket that carries microphone audio one way and JSON messages the other, for every audio
 * socket of the API (/ws, /api/v1/ws/single, the rooms). Audio given before the server's first
 * message (`ready`, a room's `welcome`) is held, up to ~3 s, and sent right after it, so the first
 * words are not dropped.
 */

/** How a socket closed: its code and reason, and whether the server had said it was ready. */
export interface SocketClose {
  code: number;
  reason: string;
  wasReady: boolean;
}

export interface AudioSocketHandlers<M extends { type: string }> {
  /** The message type after which audio may flow. */
  readyType: M["type"];
  /** Runs once on that message, before held audio goes out (single mode sends its config here). */
  onReady?: (socket: AudioSocket<M>) => void;
  onMessage: (message: M) => void;
  onClose: (close: SocketClose) => void;
}

/** Audio held while the socket opens: about 3 s of 100 ms chunks. */
const MAX_PENDING_CHUNKS = 30;

/**
 * The ws:// or wss:// URL of an API socket on `origin`, with its query.
 *
 * @example socketUrl("https://a.example", "/ws", { language: "en" }) // wss://a.example/ws?language=en
 */
export function socketUrl(origin: string, path: string, query: Record<string, string>): URL {
  const url = new URL(path, origin);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url;
}

/**
 * @example
 * const socket = new AudioSocket<LiveServerMessage>(url, { readyType: "ready", onMessage, onClose });
 * mic.onChunk = (pcm) => socket.send(pcm);
 */
export class AudioSocket<M extends { type: string }> {
  private readonly ws: WebSocket;
  private ready = false;
  private pending: ArrayBuffer[] = [];

  constructor(url: URL, handlers: AudioSocketHandlers<M>) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      let message: M;
      try {
        message = JSON.parse(event.data) as M;
      } catch {
        return;
      }
      if (!this.ready && message.type === handlers.readyType) {
        this.ready = true;
        handlers.onReady?.(this);
        for (const chunk of this.pending) this.ws.send(chunk);
        this.pending = [];
      }
      handlers.onMessage(message);
    };
    this.ws.onclose = (event) =>
      handlers.onClose({ code: event.code, reason: event.reason, wasReady: this.ready });
  }

  /** Sends a chunk of PCM16 audio, or holds it until the server is ready. */
  send(pcm: ArrayBuffer): void {
    if (this.ws.readyState === WebSocket.OPEN && this.ready) this.ws.send(pcm);
    else if (this.ws.readyState <= WebSocket.OPEN) {
      this.pending.push(pcm);
      if (this.pending.length > MAX_PENDING_CHUNKS) this.pending.shift();
    }
  }

  /** Sends a control message; false when the socket is not open. */
  sendJson(message: object): boolean {
    if (this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  close(code = 1000, reason = "client closed"): void {
    this.ws.close(code, reason);
  }
}
