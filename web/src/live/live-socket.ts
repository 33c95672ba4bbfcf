import type { LiveServerMessage } from "../api/types.ts";
import { AudioSocket, type SocketClose, socketUrl } from "../audio/audio-socket.ts";

/** What the live session reports to the page: the server's messages, then how the socket closed. */
export type LiveEvent = LiveServerMessage | ({ type: "closed" } & SocketClose);

/**
 * One /ws session from the browser, opened with a socket token of scope `live` (authApi.socketToken)
 * in the `token` query parameter: a browser WebSocket cannot set headers, and the API key stays out of URLs. Audio given before `ready` is held (up to ~3 s) and sent on `ready`, so the first
 * words are not dropped; `end()` asks for the last finals, after which the server closes with 1000.
 *
 * @example
 * const { token } = await authApi.socketToken("live");
 * const live = new LiveSocket(location.origin, token, "en", (event) => render(event));
 * mic.onChunk = (pcm) => live.send(pcm);
 */
export class LiveSocket {
  private readonly socket: AudioSocket<LiveServerMessage>;

  constructor(origin: string, token: string, language: string, onEvent: (event: LiveEvent) => void) {
    this.socket = new AudioSocket<LiveServerMessage>(socketUrl(origin, "/ws", { language, token }), {
      readyType: "ready",
      onMessage: onEvent,
      onClose: (close) => onEvent({ type: "closed", ...close }),
    });
  }

  send(pcm: ArrayBuffer): void {
    this.socket.send(pcm);
  }

  /** No more audio: the server finishes the utterance, sends its finals and closes with 1000. */
  end(): void {
    if (!this.socket.sendJson({ type: "end" })) this.socket.close();
  }

  close(): void {
    this.socket.close();
  }
}
