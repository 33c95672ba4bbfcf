import { pcmWavHeader } from "../../../protocol/wav.ts";
import { clipBlob, type TranslationAudio } from "./translation-audio.ts";

/** Plays one clip at a time. */
export interface ClipPlayer {
  /** Plays `clip`; resolves once it has ended, could not be played, or was stopped. */
  play(clip: TranslationAudio): Promise<void>;
  /** Stops the clip playing now (its `play` resolves). */
  stop(): void;
}

/**
 * Clips waiting beyond this many while one plays: the listener has fallen behind the room (speech
 * comes faster than it is spoken aloud), so the oldest waiting clip is dropped; its text is on screen.
 */
export const MAX_WAITING_CLIPS = 4;

/**
 * The read-aloud queue of a listener: `translation_audio` clips played in the room's order (`seq`),
 * one after the other, never two at once. A clip older than one already queued (a repeat) is dropped.
 *
 * @example
 * const queue = new SpeechQueue(mediaElementPlayer(new Audio()), (clip) => showSpeaking(clip));
 * socket.onMessage = (m) => m.type === "translation_audio" && queue.push(m);
 */
export class SpeechQueue {
  private waiting: TranslationAudio[] = [];
  private lastSeq = Number.NEGATIVE_INFINITY;
  private draining = false;

  constructor(
    private readonly player: ClipPlayer,
    /** The clip now playing, or null once the queue ran dry or was cleared. */
    private readonly onPlaying: (clip: TranslationAudio | null) => void = () => {},
  ) {}

  push(clip: TranslationAudio): void {
    if (clip.seq <= this.lastSeq) return;
    this.lastSeq = clip.seq;
    this.waiting.push(clip);
    if (this.waiting.length > MAX_WAITING_CLIPS) this.waiting.shift();
    if (!this.draining) void this.drain();
  }

  /** A new connection to the room (a reconnect, a new language): its `seq` starts a new order. */
  restartOrder(): void {
    this.lastSeq = Number.NEGATIVE_INFINITY;
  }

  /** Read-aloud turned off, or the page left: nothing more is played. */
  clear(): void {
    this.waiting = [];
    this.player.stop();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    for (let clip = this.waiting.shift(); clip; clip = this.waiting.shift()) {
      this.onPlaying(clip);
      await this.player.play(clip);
    }
    this.draining = false;
    this.onPlaying(null);
  }
}

/** What mediaElementPlayer uses of an <audio> element. */
export type MediaElementLike = Pick<
  HTMLMediaElement,
  "src" | "play" | "pause" | "addEventListener" | "removeEventListener"
>;

/** Slack over a clip's stated duration before a clip that never reports its end is given up on. */
const STALL_SLACK_MS = 5_000;

/**
 * A ClipPlayer over one media element (a phone plays an <audio> the user unlocked with a tap): each
 * clip is a blob: URL, revoked once it ended. A clip the browser refuses to play is skipped.
 */
export function mediaElementPlayer(audio: MediaElementLike): ClipPlayer {
  let stopCurrent: (() => void) | null = null;
  return {
    play(clip) {
      return new Promise<void>((resolve) => {
        const url = URL.createObjectURL(clipBlob(clip));
        const finish = () => {
          if (stopCurrent !== halt) return;
          stopCurrent = null;
          clearTimeout(stall);
          audio.removeEventListener("ended", finish);
          audio.removeEventListener("error", finish);
          URL.revokeObjectURL(url);
          resolve();
        };
        const halt = () => {
          audio.pause();
          finish();
        };
        stopCurrent = halt;
        const stall = setTimeout(halt, clip.duration * 1000 + STALL_SLACK_MS);
        audio.addEventListener("ended", finish);
        audio.addEventListener("error", finish);
        audio.src = url;
        audio.play().catch(finish);
      });
    },
    stop() {
      stopCurrent?.();
    },
  };
}

/**
 * Lets `audio` play later clips without a tap each: called from the tap that turns read-aloud on, it
 * plays a tenth of a second of silence (phones allow sound from an element first played in a gesture).
 */
export function unlockMediaElement(audio: MediaElementLike): void {
  const bytes = 3_200; // 0.1 s of 16 kHz PCM16
  const wav = new Uint8Array(44 + bytes);
  wav.set(pcmWavHeader({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 }, bytes));
  const silence = new Blob([wav], { type: "audio/wav" });
  const url = URL.createObjectURL(silence);
  audio.src = url;
  audio
    .play()
    .catch(() => {}) // refused or cut short by the first clip: the clips are tried anyway
    .finally(() => URL.revokeObjectURL(url));
}
