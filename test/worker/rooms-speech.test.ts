import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SynthesizeRequest } from "../../protocol/live-speech.ts";
import { RoomServerMessage, type TranslationAudio } from "../../protocol/rooms.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, next, openRoom, pcmFrame, silent, until } from "./rooms-helpers.ts";

/**
 * Issue #31.3: spoken translations in a room. The engine double counts the `synthesize` requests the
 * room sends on the speaker's stream; participants with speak on get `translation_audio` right after
 * the final it speaks, once per language per final, in seq order; the speaker never hears itself.
 */

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("rooms-speech")).key;
});

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded);
});

async function member(conversationId: string, query: Record<string, string>) {
  const joined = await join(conversationId, query);
  open.push(joined.socket);
  return joined;
}

/** A few bytes standing for audio (the room relays it as is; the node test checks real speech). */
const AUDIO = btoa("RIFF-not-really-audio");

/** The engine's next text frame (the speaker's audio, binary, passes by). */
async function engineText(engine: TestSocket, timeoutMs?: number): Promise<unknown> {
  for (;;) {
    const frame = await engine.next(timeoutMs);
    if (typeof frame === "string") return JSON.parse(frame);
  }
}

/** Asserts the engine gets no text frame within `ms`. */
async function engineSilent(engine: TestSocket, ms = 300): Promise<void> {
  await expect(engineText(engine, ms)).rejects.toThrow(/no frame within/);
}

/** The speaker's stream at the engine double, after its config. */
async function speakerStream(speaker: TestSocket): Promise<TestSocket> {
  if (!node) throw new Error("no engine");
  speaker.send(pcmFrame(true));
  const { session } = await node.acceptAssignment();
  expect(await session.json()).toMatchObject({ type: "config" });
  return session;
}

function final(engine: TestSocket, id: string, translations: Record<string, string>): void {
  engine.send({
    type: "final",
    text: `Hello ${id}.`,
    start: 0,
    end: 1,
    language: "en",
    utterance_id: id,
    translations,
    translation_errors: [],
  });
}

/** The synthesize requests the engine gets for one final (and then nothing more for a while). */
async function requests(engine: TestSocket, count: number): Promise<SynthesizeRequest[]> {
  const got: SynthesizeRequest[] = [];
  for (let i = 0; i < count; i++) got.push(SynthesizeRequest.parse(await engineText(engine)));
  await engineSilent(engine);
  return got;
}

const answer = (engine: TestSocket, id: string, duration = 0.5) =>
  engine.send({ type: "synthesized", id, content_type: "audio/wav", duration, audio: AUDIO });

/** The next final this participant reads, then what comes right after it. */
async function finalThenNext(socket: TestSocket): Promise<RoomServerMessage> {
  const { found } = await until(socket, "transcript");
  expect(found.is_interim).toBe(false);
  return RoomServerMessage.parse(await next(socket));
}

describe("spoken translations", () => {
  it("speaks each final once per language, only to participants with speak on, right after its transcript", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en", name: "Ana", client_id: "lecturer-1", speak: "true" });
    const es1 = await member(id, { language: "es", role: "listener", speak: "true" });
    const es2 = await member(id, { language: "es", role: "listener", speak: "true" });
    const fr = await member(id, { language: "fr", role: "listener", speak: "true" });
    const frQuiet = await member(id, { language: "fr", role: "listener", speak: "false" });
    const de = await member(id, { language: "de", role: "listener" });
    const en = await member(id, { language: "en", role: "listener", speak: "true" });
    const engine = await speakerStream(speaker.socket);

    final(engine, "u1", { es: "Hola u1.", fr: "Bonjour u1.", de: "Hallo u1." });
    const asked = await requests(engine, 3);
    // once per language with a listener that has speak on (never once per listener; not the speaker's)
    expect(asked.map(({ language, text }) => ({ language, text }))).toEqual([
      { language: "en", text: "Hello u1." },
      { language: "es", text: "Hola u1." },
      { language: "fr", text: "Bonjour u1." },
    ]);
    for (const request of [...asked].reverse()) answer(engine, request.id, 0.75);

    const spoken: TranslationAudio[] = [];
    for (const [listener, language, text] of [
      [es1, "es", "Hola u1."],
      [es2, "es", "Hola u1."],
      [fr, "fr", "Bonjour u1."],
      [en, "en", "Hello u1."],
    ] as const) {
      const after = await finalThenNext(listener.socket);
      expect(after).toMatchObject({
        type: "translation_audio",
        speaker: "lecturer-1",
        speaker_name: "Ana",
        language,
        text,
        content_type: "audio/wav",
        duration: 0.75,
        audio: AUDIO,
      });
      spoken.push(after as TranslationAudio);
    }
    expect(new Set(spoken.map((a) => a.seq)).size).toBe(1);
    for (const quiet of [frQuiet, de, speaker]) {
      await until(quiet.socket, "transcript");
      await silent(quiet.socket);
    }

    // es2 switches off, frQuiet on: the next final is asked once per language again
    es2.socket.send({ type: "speak", enabled: false });
    frQuiet.socket.send({ type: "speak", enabled: true });
    await silent(es2.socket, 100); // the switch is answered by nothing but its effect
    final(engine, "u2", { es: "Hola u2.", fr: "Bonjour u2.", de: "Hallo u2." });
    const again = await requests(engine, 3);
    expect(again.map((r) => r.language)).toEqual(["en", "es", "fr"]);
    for (const request of again) answer(engine, request.id);
    const next2 = await finalThenNext(frQuiet.socket);
    expect(next2).toMatchObject({ type: "translation_audio", language: "fr", text: "Bonjour u2." });
    expect((next2 as TranslationAudio).seq).toBeGreaterThan(spoken[0]?.seq ?? Number.POSITIVE_INFINITY);
    await until(es2.socket, "transcript");
    await silent(es2.socket);
    expect(await finalThenNext(es1.socket)).toMatchObject({ type: "translation_audio", text: "Hola u2." });
  }, 60_000);

  it("keeps each listener's audio in seq order, whatever order the answers come in", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en" });
    const listener = await member(id, { language: "es", role: "listener", speak: "true" });
    const engine = await speakerStream(speaker.socket);
    final(engine, "u1", { es: "Uno." });
    const [first] = await requests(engine, 1);
    final(engine, "u2", { es: "Dos." });
    const [second] = await requests(engine, 1);
    if (!first || !second) throw new Error("expected two requests");
    answer(engine, second.id);
    await until(listener.socket, "transcript");
    await until(listener.socket, "transcript");
    await silent(listener.socket); // the second waits for the first
    answer(engine, first.id);
    const a = (await until(listener.socket, "translation_audio")).found;
    const b = (await until(listener.socket, "translation_audio")).found;
    expect([a.text, b.text]).toEqual(["Uno.", "Dos."]);
    expect(a.seq).toBeLessThan(b.seq);
  }, 30_000);

  it("lets the stream go only once the speech asked of it is answered", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en" });
    const listener = await member(id, { language: "es", role: "listener", speak: "true" });
    const engine = await speakerStream(speaker.socket);
    speaker.socket.send({ type: "end" });
    expect(await engineText(engine)).toEqual({ type: "end" });
    final(engine, "u1", { es: "Adiós." });
    const [request] = await requests(engine, 1);
    engine.send({ type: "ended" });
    await engineSilent(engine, 500); // still open: its answer is awaited
    answer(engine, request?.id ?? "");
    expect((await until(listener.socket, "translation_audio")).found.text).toBe("Adiós.");
    expect((await engine.closeWithin()).code).toBe(1000);
  }, 30_000);

  it("tells speak-on participants once when the engine has no TTS, and the text keeps flowing", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en" });
    const es = await member(id, { language: "es", role: "listener", speak: "true" });
    const fr = await member(id, { language: "fr", role: "listener", speak: "true" });
    const de = await member(id, { language: "de", role: "listener" });
    const engine = await speakerStream(speaker.socket);
    final(engine, "u1", { es: "Uno.", fr: "Un.", de: "Eins." });
    for (const request of await requests(engine, 2)) {
      engine.send({
        type: "synthesis_failed",
        id: request.id,
        code: "tts_unavailable",
        message: "this node has no TTS",
      });
    }
    for (const listener of [es, fr]) {
      expect(await finalThenNext(listener.socket)).toEqual({
        type: "error",
        code: "tts_unavailable",
        message: "this node has no TTS",
      });
      await silent(listener.socket); // once, not once per request
    }
    final(engine, "u2", { es: "Dos.", fr: "Deux.", de: "Zwei." });
    await engineSilent(engine); // not asked again on this stream
    await until(de.socket, "transcript"); // u1, without speech
    for (const listener of [es, fr, de]) {
      const { found, before } = await until(listener.socket, "transcript");
      expect([found.utterance_id, before]).toEqual(["u2", []]);
      await silent(listener.socket, 100);
    }
  }, 30_000);

  it("tells a failed synthesis to that language's listeners only (tts_failed)", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en" });
    const es = await member(id, { language: "es", role: "listener", speak: "true" });
    const fr = await member(id, { language: "fr", role: "listener", speak: "true" });
    const engine = await speakerStream(speaker.socket);
    final(engine, "u1", { es: "Uno.", fr: "Un." });
    const [esAsk, frAsk] = await requests(engine, 2);
    engine.send({
      type: "synthesis_failed",
      id: esAsk?.id,
      code: "tts_failed",
      message: "espeak-ng crashed",
    });
    answer(engine, frAsk?.id ?? "");
    expect(await finalThenNext(es.socket)).toMatchObject({ type: "error", code: "tts_failed" });
    expect(await finalThenNext(fr.socket)).toMatchObject({ type: "translation_audio", text: "Un." });
  }, 30_000);

  it("takes speak at join (welcome), keeps it on a reconnect, refuses a bad value and a malformed switch", async () => {
    const id = await newSession(key);
    const bad = await openRoom(id, { language: "es", speak: "yes" });
    expect(await bad.closeWithin()).toEqual({ code: 4400, reason: "speak must be true or false" });
    const first = await openRoom(id, { language: "es", speak: "true" });
    const welcome = RoomServerMessage.parse(await next(first));
    if (welcome.type !== "welcome") throw new Error("expected a welcome");
    expect(welcome.speak).toBe(true);
    first.ws.close(4000, "dropped");
    await first.closed;
    const back = await openRoom(id, { language: "es", resume: welcome.resume_token });
    open.push(back);
    expect(RoomServerMessage.parse(await next(back))).toMatchObject({ type: "welcome", speak: true });
    const plain = await openRoom(id, { language: "fr" });
    open.push(plain);
    expect(RoomServerMessage.parse(await next(plain))).toMatchObject({ type: "welcome", speak: false });
    await until(back, "partner_language");
    back.send({ type: "speak", enabled: "yes" });
    expect((await until(back, "error")).found).toMatchObject({ code: "bad_message" });
  });
});
