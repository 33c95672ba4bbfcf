import type { SingleServerMessage } from "../api/types.ts";
import { AudioSocket, type SocketClose, socketUrl } from "../audio/audio-socket.ts";
import type { LanguagePair } from "./pair.ts";

/** What a single-device session reports: the server's messages, then how the socket closed. */
export type SingleEvent = SingleServerMessage | ({ type: "closed" } & SocketClose);

/**
 * One /api/v1/ws/single session, opened with a socket token of scope `translate` in `token` (a browser
 * WebSocket cannot set headers, and the API key stays out of URLs), the
 * `config` sent as soon as the server is ready and again whenever the languages change (the server
 * applies it from the next utterance), then PCM16 audio. `end()` asks for the last finals; the server
 * then closes with 1000.
 *
 * @example
 * const { token } = await authApi.socketToken("translate");
 * const session = new SingleSocket(location.origin, token, { source: "en", target: "es" }, render);
 * session.configure({ source: "es", target: "en" }); // mid-session
 */
export class SingleSocket {
  private readonly socket: AudioSocket<SingleServerMessage>;
  private pair: LanguagePair;
  private ready = false;

  constructor(origin: string, token: string, pair: LanguagePair, onEvent: (event: SingleEvent) => void) {
    this.pair = pair;
    this.socket = new AudioSocket<SingleServerMessage>(socketUrl(origin, "/api/v1/ws/single", { token }), {
      readyType: "ready",
      onReady: () => {
        this.ready = true;
        this.sendConfig();
      },
      onMessage: onEvent,
      onClose: (close) => onEvent({ type: "closed", ...close }),
    });
  }

  /** New languages: sent now when the session is ready, else with the first config. */
  configure(pair: LanguagePair): void {
    this.pair = pair;
    if (this.ready) this.sendConfig();
  }

  send(pcm: ArrayBuffer): void {
    this.socket.send(pcm);
  }

  end(): void {
    if (!this.socket.sendJson({ type: "end" })) this.socket.close();
  }

  close(): void {
    this.socket.close();
  }

  private sendConfig(): void {
    this.socket.sendJson({
      type: "config",
      language: this.pair.source,
      translate_language: this.pair.target,
    });
  }
}
