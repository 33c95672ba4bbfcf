import { resolveObjectURL } from "node:buffer";
import { describe, expect, it } from "vitest";
import { MAX_WAITING_CLIPS, mediaElementPlayer, SpeechQueue } from "../../web/src/room/speech-queue.ts";
import type { TranslationAudio } from "../../web/src/room/translation-audio.ts";

/**
 * The listener's read-aloud queue over a stand-in <audio> element (Node has no media element): it
 * records what each play() was given and whether another clip was still playing then.
 */
class FakeAudio extends EventTarget {
  src = "";
  /** The clip text of each play(), in order (read back from its blob: URL). */
  readonly played: string[] = [];
  overlaps = 0;
  playing = false;

  async play(): Promise<void> {
    if (this.playing) this.overlaps++;
    this.playing = true;
    const blob = resolveObjectURL(this.src);
    this.played.push(blob ? `${blob.type} ${await blob.text()}` : "revoked");
  }

  pause(): void {
    this.playing = false;
  }

  /** The clip played to its end. */
  end(): void {
    this.playing = false;
    this.dispatchEvent(new Event("ended"));
  }
}

const clip = (seq: number, text = `clip ${seq}`): TranslationAudio => ({
  type: "translation_audio",
  seq,
  speaker: "speaker-1",
  language: "vi",
  text,
  content_type: "audio/wav",
  duration: 60,
  audio: Buffer.from(text).toString("base64"),
});

/** Lets the queue's promises and the fake's async play() settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function queueOver(audio: FakeAudio) {
  const playing: (number | null)[] = [];
  const queue = new SpeechQueue(mediaElementPlayer(audio as unknown as HTMLMediaElement), (now) =>
    playing.push(now?.seq ?? null),
  );
  return { queue, playing };
}

describe("read aloud: the listener's speech queue", () => {
  it("plays translation_audio clips in order, one at a time, each only after the last ended", async () => {
    const audio = new FakeAudio();
    const { queue, playing } = queueOver(audio);
    queue.push(clip(1));
    queue.push(clip(2));
    queue.push(clip(3));
    await settle();
    expect(audio.played).toEqual(["audio/wav clip 1"]);
    audio.end();
    await settle();
    expect(audio.played).toEqual(["audio/wav clip 1", "audio/wav clip 2"]);
    queue.push(clip(4));
    for (let i = 0; i < 3; i++) {
      audio.end();
      await settle();
    }
    expect(audio.played).toEqual([
      "audio/wav clip 1",
      "audio/wav clip 2",
      "audio/wav clip 3",
      "audio/wav clip 4",
    ]);
    expect(audio.overlaps).toBe(0);
    expect(playing).toEqual([1, 2, 3, 4, null]);
    // each clip's blob: URL is let go once it ended
    expect(resolveObjectURL(audio.src)).toBeUndefined();
  });

  it("drops a repeated or older seq, and takes a new order after a reconnect", async () => {
    const audio = new FakeAudio();
    const { queue } = queueOver(audio);
    queue.push(clip(5));
    queue.push(clip(5, "again"));
    queue.push(clip(4));
    await settle();
    audio.end();
    await settle();
    expect(audio.played).toEqual(["audio/wav clip 5"]);
    queue.restartOrder();
    queue.push(clip(1, "after reconnect"));
    await settle();
    expect(audio.played).toEqual(["audio/wav clip 5", "audio/wav after reconnect"]);
  });

  it("keeps at most MAX_WAITING_CLIPS waiting behind the one playing: the oldest go", async () => {
    const audio = new FakeAudio();
    const { queue } = queueOver(audio);
    const total = MAX_WAITING_CLIPS + 3;
    for (let seq = 1; seq <= total; seq++) queue.push(clip(seq));
    for (let i = 0; i < total; i++) {
      await settle();
      audio.end();
    }
    await settle();
    const expected = [
      1,
      ...Array.from({ length: MAX_WAITING_CLIPS }, (_, i) => total - MAX_WAITING_CLIPS + 1 + i),
    ];
    expect(audio.played).toEqual(expected.map((seq) => `audio/wav clip ${seq}`));
    expect(audio.overlaps).toBe(0);
  });

  it("stops the clip playing and forgets those waiting when read-aloud is turned off", async () => {
    const audio = new FakeAudio();
    const { queue, playing } = queueOver(audio);
    queue.push(clip(1));
    queue.push(clip(2));
    await settle();
    queue.clear();
    await settle();
    expect(audio.playing).toBe(false);
    expect(playing).toEqual([1, null]);
    queue.push(clip(3));
    await settle();
    expect(audio.played).toEqual(["audio/wav clip 1", "audio/wav clip 3"]);
  });

  it("skips a clip the browser refuses to play (autoplay blocked) and goes on", async () => {
    const audio = new FakeAudio();
    const refusing = Object.assign(audio, {
      play: async () => {
        audio.played.push("refused");
        throw new DOMException("not allowed", "NotAllowedError");
      },
    });
    const { queue, playing } = queueOver(refusing);
    queue.push(clip(1));
    queue.push(clip(2));
    await settle();
    await settle();
    expect(audio.played).toEqual(["refused", "refused"]);
    expect(playing).toEqual([1, 2, null]);
  });
});
