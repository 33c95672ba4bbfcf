import { describe, expect, it } from "vitest";
import type { Participant } from "../../durable-objects/rooms/room-protocol.ts";
import { hearers, speechAsks } from "../../durable-objects/rooms/speech-plan.ts";
import { type PendingSpeech, SpeechQueue } from "../../durable-objects/rooms/speech-queue.ts";

/** The room's spoken-translation decisions and its queue of syntheses, as plain code. */

const pending = (seq: number, language: string, stream = "s1", askedAt = 0): PendingSpeech => ({
  id: `${seq}-${language}`,
  seq,
  language,
  text: `text ${seq}`,
  speaker: "a",
  stream_id: stream,
  asked_at: askedAt,
  outcome: null,
});
const ok = { ok: true as const, content_type: "audio/wav" as const, audio: "AA==", duration: 1 };

const person = (client_id: string, language: string, speak?: boolean, left_at: number | null = null) =>
  ({ client_id, language, speak, left_at, joined_at: 0, resume_hash: "" }) satisfies Participant;

describe("SpeechQueue", () => {
  it("drops the oldest beyond its cap, as tts_failed", () => {
    const queue = new SpeechQueue(2);
    expect(queue.add(pending(1, "es"))).toEqual([]);
    expect(queue.add(pending(2, "es"))).toEqual([]);
    const dropped = queue.add(pending(3, "es"));
    expect(dropped.map((d) => [d.seq, d.outcome?.ok, d.outcome && !d.outcome.ok && d.outcome.code])).toEqual([
      [1, false, "tts_failed"],
    ]);
    expect(queue.settle("1-es", ok)).toBe(false); // its late answer is ignored
  });

  it("releases in seq order per language: an unanswered entry holds back later ones of its language only", () => {
    const queue = new SpeechQueue();
    for (const entry of [pending(1, "es"), pending(1, "fr"), pending(2, "es"), pending(2, "fr")])
      queue.add(entry);
    queue.settle("2-es", ok);
    queue.settle("1-fr", ok);
    expect(queue.release().map((e) => e.id)).toEqual(["1-fr"]);
    queue.settle("1-es", ok);
    expect(queue.release().map((e) => e.id)).toEqual(["1-es", "2-es"]);
    expect(queue.waitingOn("s1")).toBe(true); // 2-fr
  });

  it("fails what times out, and what a gone stream was asked", () => {
    const queue = new SpeechQueue();
    queue.add(pending(1, "es", "s1", 0));
    queue.add(pending(2, "es", "s2", 5_000));
    queue.expire(8_000);
    expect(queue.release().map((e) => [e.id, e.outcome.ok])).toEqual([["1-es", false]]);
    queue.failStream("s2", "gone");
    expect(queue.waitingOn("s2")).toBe(false);
    expect(queue.release().map((e) => e.outcome)).toEqual([
      { ok: false, code: "tts_failed", message: "gone" },
    ]);
  });
});

describe("which languages a final is spoken in, and who hears it", () => {
  const entry = {
    utterance_id: "u1",
    speaker: "a",
    language: "en",
    original: "Hello.",
    translations: { es: "Hola.", fr: "" },
    start: 0,
    end: 1,
    at: 0,
  };
  const room = [
    person("a", "en", true), // the speaker: never spoken back to
    person("b", "es", true),
    person("c", "es", true),
    person("d", "fr", true), // its translation is empty: not spoken
    person("e", "de", true), // its translation failed: not spoken
    person("f", "en", true), // reads the original: spoken in English
    person("g", "it", false),
    person("h", "ja", true, 1_000), // dropped: not asked for
  ];

  it("once per language of a connected speak-on participant other than the speaker", () => {
    expect(speechAsks(entry, room)).toEqual([
      { language: "en", text: "Hello." },
      { language: "es", text: "Hola." },
    ]);
  });

  it("refuses a text over SPEECH_MAX_TEXT_CHARS without asking", () => {
    const long = { ...entry, translations: { es: "x".repeat(1_001) } };
    expect(speechAsks(long, [person("a", "en"), person("b", "es", true)])).toEqual([
      { language: "es", text: "x".repeat(1_001), refused: "too long to speak (over 1000 characters)" },
    ]);
  });

  it("hearers: speak on, that language, connected, not the speaker", () => {
    expect(hearers(room, "es", "a")).toEqual(["b", "c"]);
    expect(hearers(room, "en", "a")).toEqual(["f"]);
    expect(hearers(room, "it", "a")).toEqual([]);
  });
});
