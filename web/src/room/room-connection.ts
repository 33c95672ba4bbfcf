import type { RoomClose } from "../../../protocol/rooms.ts";
import type { RoomServerMessage } from "../api/types.ts";
import { AudioSocket, socketUrl } from "../audio/audio-socket.ts";
import type { TranslationAudio } from "./translation-audio.ts";

/** What the room sends a participant: the spec's messages, and spoken translations for read-aloud. */
export type RoomMessage = RoomServerMessage | TranslationAudio;

/** How a participant joins: as a speaker (its audio is transcribed) or a listener (it only reads). */
export type JoinRole = "speaker" | "listener";

/** The room socket's close codes (protocol/rooms.ts RoomClose; copied: that module carries zod). */
export const ROOM_CLOSE = {
  normal: 1000,
  tooBig: 1009,
  badRequest: 4400,
  notFound: 4404,
  expired: 4408,
  replaced: 4409,
  maxAge: 4410,
  removed: 4403,
  locked: 4423,
  endedByHost: 4460,
  full: 4429,
} as const satisfies typeof RoomClose;

/** A dropped participant keeps its place this long (docs/api.md): reconnecting later is a new join. */
export const RECONNECT_WINDOW_MS = 30_000;

export type RoomState =
  | { kind: "connecting" }
  | { kind: "connected" }
  | { kind: "reconnecting"; attempt: number }
  | { kind: "closed"; code: number; reason: string };

/**
 * What to do after the room socket closed: 1000 (left), 1009 and every 4xxx code are the room's answer
 * and final; anything else is a drop, retried while the participant's place is kept.
 *
 * @example afterClose(1006, 5_000) // "reconnect"
 * @example afterClose(4404, 0) // "final"
 */
export function afterClose(code: number, sinceDropMs: number): "reconnect" | "final" | "give_up" {
  if (code === ROOM_CLOSE.normal || code === ROOM_CLOSE.tooBig || (code >= 4000 && code <= 4999))
    return "final";
  return sinceDropMs < RECONNECT_WINDOW_MS ? "reconnect" : "give_up";
}

/** Wait before reconnect attempt `n` (0-based): 0.5 s, 1 s, 2 s, then every 4 s. */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(4_000, 500 * 2 ** attempt);
}

export interface RoomConnectionOptions {
  origin: string;
  conversationId: string;
  language: string;
  /** Display name shown to everyone; null for none. */
  name: string | null;
  role: JoinRole;
  /** Read aloud: the room sends this participant its translations as speech (`translation_audio`). */
  speak: boolean;
  /** The resume token of this participant's last welcome (a reload), or null for a first join. */
  resumeToken: string | null;
  /** Each welcome brings a fresh resume token: keep it to come back into the same place. */
  onResumeToken: (token: string) => void;
  onMessage: (message: RoomMessage) => void;
  onState: (state: RoomState) => void;
}

/**
 * A participant's connection to a room (/api/v1/ws/{conversation_id}, no key: the id is the
 * capability). A drop is retried with the secret resume token of the latest welcome for as long as
 * the room keeps the place (30 s), so the others see no leave and join; a close the room chose (4xxx)
 * is final. The join carries the name, role and read-aloud choice (`speak`, docs/api.md).
 *
 * @example
 * const room = new RoomConnection({ origin: location.origin, conversationId, language: "es", name: "Ana", role: "listener", speak: true, resumeToken: null, onResumeToken, onMessage, onState });
 * mic.onChunk = (pcm) => room.send(pcm);
 * room.leave();
 */
export class RoomConnection {
  private socket: AudioSocket<RoomMessage> | null = null;
  private droppedAt: number | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private left = false;
  private resumeToken: string | null;
  private language: string;
  private speak: boolean;

  constructor(private readonly options: RoomConnectionOptions) {
    this.resumeToken = options.resumeToken;
    this.language = options.language;
    this.speak = options.speak;
    options.onState({ kind: "connecting" });
    this.open();
  }

  send(pcm: ArrayBuffer): void {
    this.socket?.send(pcm);
  }

  /** Push-to-talk released: the room finishes this participant's utterance now. */
  endUtterance(): void {
    this.socket?.sendJson({ type: "end" });
  }

  /** Read aloud on or off, from the next final on (also asked again on every reconnect). */
  setSpeak(enabled: boolean): void {
    this.speak = enabled;
    this.socket?.sendJson({ type: "speak", enabled });
  }

  /**
   * Goes on in another language, in the same place: a new connection with the resume token and the
   * new language takes the place over (the room closes the old one with 4409, which is let go here),
   * so the others see no leave and join.
   */
  switchLanguage(language: string): void {
    if (language === this.language) return;
    this.language = language;
    clearTimeout(this.timer);
    // Without a token (no welcome yet) there is no place to take over: the old connection leaves.
    if (this.resumeToken === null) this.socket?.close(ROOM_CLOSE.normal, "left");
    this.socket = null;
    this.options.onState({ kind: "connecting" });
    this.open();
  }

  /** Leaves for good (close 1000: the others see the leave at once). */
  leave(): void {
    this.left = true;
    clearTimeout(this.timer);
    this.socket?.close(ROOM_CLOSE.normal, "left");
    this.socket = null;
  }

  private open(): void {
    const { origin, conversationId, name, role } = this.options;
    const url = socketUrl(origin, `/api/v1/ws/${encodeURIComponent(conversationId)}`, {
      language: this.language,
      role,
      speak: String(this.speak),
      ...(name !== null && { name }),
      ...(this.resumeToken !== null && { resume: this.resumeToken }),
    });
    const socket = new AudioSocket<RoomMessage>(url, {
      readyType: "welcome",
      onReady: () => {
        this.droppedAt = null;
        this.attempt = 0;
        this.options.onState({ kind: "connected" });
      },
      onMessage: (message) => {
        if (message.type === "welcome") {
          this.resumeToken = message.resume_token;
          this.options.onResumeToken(message.resume_token);
        }
        this.options.onMessage(message);
      },
      onClose: ({ code, reason }) => {
        if (this.left || socket !== this.socket) return;
        this.socket = null;
        this.droppedAt ??= Date.now();
        const next = afterClose(code, Date.now() - this.droppedAt);
        if (next === "reconnect") {
          this.options.onState({ kind: "reconnecting", attempt: this.attempt });
          this.timer = setTimeout(() => this.open(), reconnectDelayMs(this.attempt++));
        } else {
          this.options.onState({ kind: "closed", code: next === "give_up" ? 1006 : code, reason });
        }
      },
    });
    this.socket = socket;
  }
}
