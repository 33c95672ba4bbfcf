import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { RoomClose, RoomServerMessage } from "../../protocol/rooms.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, next, openRoom, pcmFrame, silent, until } from "./rooms-helpers.ts";

/**
 * TranslationRoom through the Worker's real fetch handler and the real LiveHub, with a fake engine on
 * the internal side (the real one is covered by test/node and test/e2e/rooms-e2e).
 */

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("rooms")).key;
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

describe("presence", () => {
  it("counts joins and leaves and tells each participant its partner's language", async () => {
    const id = await newSession(key, { language: "en", translate_language: "es" });
    const a = await openRoom(id, { language: "en" });
    open.push(a);
    const welcomeA = RoomServerMessage.parse(await next(a));
    expect(welcomeA).toMatchObject({ type: "welcome", conversation_id: id, language: "en", client_count: 1 });
    expect(await next(a)).toMatchObject({ type: "user_joined", client_count: 1, language: "en" });
    // alone: the partner is expected to speak the session's translate_language
    expect(await next(a)).toEqual({ type: "partner_language", lang: "es", languages: [] });

    const b = await openRoom(id, { language: "Spanish" });
    open.push(b);
    const welcomeB = await next(b);
    expect(welcomeB).toMatchObject({ type: "welcome", language: "es", client_count: 2 });
    const bId = welcomeB.type === "welcome" ? welcomeB.client_id : "";
    expect(await next(b)).toMatchObject({ type: "user_joined", client_count: 2, client_id: bId });
    expect(await next(b)).toEqual({ type: "partner_language", lang: "en", languages: ["en"] });
    expect(await next(a)).toEqual({
      type: "user_joined",
      client_count: 2,
      client_id: bId,
      language: "es",
      name: null,
      role: "speaker",
    });
    expect(await next(a)).toEqual({ type: "partner_language", lang: "es", languages: ["es"] });

    b.ws.close(1000, "bye");
    expect(await next(a)).toEqual({ type: "user_left", client_count: 1, client_id: bId });
    expect(await next(a)).toEqual({ type: "partner_language", lang: "es", languages: [] });
  });

  it("closes with documented codes: unknown conversation 4404, bad language or client_id 4400", async () => {
    const unknown = await openRoom(crypto.randomUUID(), { language: "en" });
    expect(await unknown.closeWithin()).toMatchObject({ code: RoomClose.notFound });
    expect(await (await openRoom("not-a-uuid", { language: "en" })).closeWithin()).toMatchObject({
      code: RoomClose.notFound,
      reason: "conversation not found or expired",
    });

    const id = await newSession(key);
    for (const query of [{}, { language: "klingon" }, { language: "auto" }] as Record<string, string>[]) {
      expect(await (await openRoom(id, query)).closeWithin()).toMatchObject({
        code: RoomClose.badRequest,
        reason: expect.stringMatching(/language/),
      });
    }
    expect(await (await openRoom(id, { language: "en", client_id: "x" })).closeWithin()).toMatchObject({
      code: RoomClose.badRequest,
      reason: expect.stringMatching(/client_id/),
    });
  });
});

describe("speech", () => {
  it("sends interims to the speaker only and each final to everyone, in the reader's language", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "speaker-a" });
    const b = await member(id, { language: "es", client_id: "listener-b" });
    await until(a.socket, "partner_language");

    a.socket.send(pcmFrame(false)); // quiet: no stream yet
    // frames sent back to back from the test isolate may reach the object out of order: space them
    await new Promise((resolve) => setTimeout(resolve, 50));
    a.socket.send(pcmFrame(true));
    const { session, mode } = await node.acceptAssignment();
    expect(mode).toBe("stream");
    expect(await session.json()).toEqual({
      type: "config",
      language: "en",
      targets: ["es"],
      interim_target: "es",
    });
    // the quiet pre-roll and the loud frame waited for the engine, in order
    const f1 = new Int16Array((await session.next()) as ArrayBuffer);
    const f2 = new Int16Array((await session.next()) as ArrayBuffer);
    if (!f1.every((s) => s === 0) || !f2.some((s) => s !== 0))
      console.log("FRAMES", f1.slice(0, 8), f2.slice(0, 8), f1.length, f2.length);
    expect(f1.every((s) => s === 0)).toBe(true);
    expect(f2.some((s) => s !== 0)).toBe(true);
    a.socket.send(pcmFrame(true));
    expect(((await session.next()) as ArrayBuffer).byteLength).toBe(3200);

    session.send({
      type: "interim",
      text: "hello",
      start: 0.1,
      end: 0.6,
      utterance_id: "u1",
      language: "en",
      translations: { es: "hola" },
    });
    expect(await next(a.socket)).toEqual({
      type: "transcript",
      is_mine: true,
      is_interim: true,
      original: "hello",
      translation: "hola",
      translation_language: "es",
      language: "en",
      utterance_id: "u1",
      speaker: "speaker-a",
      start: 0.1,
      end: 0.6,
    });
    session.send({
      type: "final",
      text: "Hello there.",
      start: 0.1,
      end: 1.2,
      language: "en",
      utterance_id: "u1",
      translations: { es: "Hola." },
      translation_errors: [],
    });
    const mine = await next(a.socket);
    const theirs = await next(b.socket); // B got no interim: the final is its next message
    expect(mine).toMatchObject({
      is_mine: true,
      is_interim: false,
      original: "Hello there.",
      translation: "Hola.",
    });
    expect(theirs).toEqual({
      type: "transcript",
      is_mine: false,
      is_interim: false,
      original: "Hello there.",
      translation: "Hola.",
      translation_language: "es",
      language: "en",
      utterance_id: "u1",
      speaker: "speaker-a",
      start: 0.1,
      end: 1.2,
    });

    // push-to-talk released: the engine is asked to finish, says ended, and the stream closes
    a.socket.send({ type: "end" });
    expect(await session.json()).toEqual({ type: "end" });
    session.send({ type: "ended" });
    expect(await session.closeWithin()).toMatchObject({ code: 1000 });
  });

  it("translates into every listener language, gives same-language readers the original, flags failures", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "speaker-a" });
    const b = await member(id, { language: "es", client_id: "reader-b" });
    const c = await member(id, { language: "en", client_id: "reader-c" });
    const d = await member(id, { language: "fr", client_id: "reader-d" });
    for (const socket of [a.socket, b.socket, c.socket]) await until(socket, "partner_language");
    for (const socket of [a.socket, b.socket]) await until(socket, "partner_language");
    await until(a.socket, "partner_language");

    a.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    // once per distinct listener language: es and fr (c reads English, the source)
    expect(await session.json()).toEqual({
      type: "config",
      language: "en",
      targets: ["es", "fr"],
      interim_target: "es",
    });
    session.send({
      type: "final",
      text: "Good morning.",
      start: 0,
      end: 1,
      language: "en",
      utterance_id: "u9",
      translations: { es: "Buenos días." },
      translation_errors: ["fr"],
    });
    expect(await until(b.socket, "transcript").then((r) => r.found)).toMatchObject({
      translation: "Buenos días.",
    });
    const forC = (await until(c.socket, "transcript")).found;
    expect(forC).toMatchObject({ translation: "Good morning.", translation_language: "en" });
    expect(forC).not.toHaveProperty("translation_error");
    expect((await until(d.socket, "transcript")).found).toMatchObject({
      translation: "Good morning.",
      translation_language: "fr",
      translation_error: true,
    });
  });

  it("lets two speakers talk at once; a third is told the room's speaker limit, the others go on", async () => {
    node = await FakeNode.connect("small-engine", 2);
    const id = await newSession(key);
    const a = await member(id, { language: "en", client_id: "speaker-a" });
    const b = await member(id, { language: "es", client_id: "speaker-b" });
    const c = await member(id, { language: "fr", client_id: "speaker-c" });
    await until(a.socket, "partner_language");
    await until(a.socket, "partner_language");
    await until(b.socket, "partner_language");

    a.socket.send(pcmFrame(true));
    const first = await node.acceptAssignment();
    expect(await first.session.json()).toMatchObject({ language: "en" });
    b.socket.send(pcmFrame(true));
    const second = await node.acceptAssignment();
    expect(await second.session.json()).toMatchObject({ language: "es", targets: ["en", "fr"] });
    // ROOM_MAX_SPEAKERS (2) are speaking: a third speaker is told, the others go on
    c.socket.send(pcmFrame(true));
    expect(await until(c.socket, "error").then((r) => r.found)).toMatchObject({
      code: "speaker_limit",
      message: expect.stringMatching(/already speaking.*not transcribed/),
    });
    first.session.send({
      type: "final",
      text: "Still here.",
      start: 0,
      end: 1,
      language: "en",
      utterance_id: "u2",
      translations: { es: "Todavía aquí.", fr: "Toujours là." },
      translation_errors: [],
    });
    second.session.send({
      type: "final",
      text: "Yo también.",
      start: 0,
      end: 1,
      language: "es",
      utterance_id: "u3",
      translations: { en: "Me too.", fr: "Moi aussi." },
      translation_errors: [],
    });
    const atC = [(await until(c.socket, "transcript")).found, (await until(c.socket, "transcript")).found];
    expect(atC.map((m) => m.type === "transcript" && m.translation).sort()).toEqual([
      "Moi aussi.",
      "Toujours là.",
    ]);
  });
});

describe("no engine", () => {
  it("tells a speaker when every engine slot is taken; the speaker who has one goes on", async () => {
    node = await FakeNode.connect("tiny-engine", 1);
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    const b = await member(id, { language: "es" });
    await until(a.socket, "partner_language");
    a.socket.send(pcmFrame(true));
    const engine = await node.acceptAssignment();
    expect(await engine.session.json()).toMatchObject({ language: "en" });
    expect(((await engine.session.next()) as ArrayBuffer).byteLength).toBe(3200); // the frame that asked
    b.socket.send(pcmFrame(true));
    expect(await until(b.socket, "error").then((r) => r.found)).toMatchObject({
      code: "no_engine",
      message: expect.stringMatching(/every streaming engine is busy.*not transcribed/),
    });
    a.socket.send(pcmFrame(true, 800));
    expect(((await engine.session.next()) as ArrayBuffer).byteLength).toBe(1600);
  });
});

describe("bad input", () => {
  it("answers text where audio is expected and odd-length frames with errors, closes 1009 on oversize", async () => {
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    a.socket.send("hello there");
    expect(await next(a.socket)).toMatchObject({
      type: "error",
      code: "bad_message",
      message: expect.stringMatching(/audio goes in binary frames/),
    });
    a.socket.send(new ArrayBuffer(3));
    expect(await next(a.socket)).toMatchObject({ type: "error", code: "bad_frame" });
    a.socket.send(new ArrayBuffer(64 * 1024 + 2));
    expect(await a.socket.closeWithin()).toMatchObject({ code: 1009 });
    await silent(a.socket, 50).catch(() => undefined);
  });
});
