import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { RoomClose, RoomServerMessage } from "../../protocol/rooms.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, waitForHealth } from "./live-helpers.ts";
import { join, newSession, next, openRoom, pcmFrame, silent, until } from "./rooms-helpers.ts";

/**
 * Issue #31.1: a room as a lecture hall. Participants join as speakers or listeners, with display
 * names; a listener's audio is refused with a message and takes no engine; finals carry the speaker's
 * name and are translated once per distinct language present; ROOM_MAX_PARTICIPANTS (100) sockets fit.
 */

let key: string;
let node: FakeNode | null = null;
const open: TestSocket[] = [];

beforeAll(async () => {
  key = (await createKey("rooms-roles")).key;
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

describe("roles and names", () => {
  it("joins with a trimmed name and a role, shown in the welcome, the join notice and the list", async () => {
    const id = await newSession(key);
    const a = await openRoom(id, { language: "en", name: "  Prof. Ana  " });
    open.push(a);
    const welcome = RoomServerMessage.parse(await next(a));
    expect(welcome).toMatchObject({ type: "welcome", role: "speaker", name: "Prof. Ana", locked: false });
    const b = await openRoom(id, { language: "es", name: "Bo", role: "listener" });
    open.push(b);
    const welcomeB = RoomServerMessage.parse(await next(b));
    if (welcomeB.type !== "welcome") throw new Error("expected a welcome");
    expect(welcomeB.participants).toEqual([
      {
        client_id: welcome.type === "welcome" ? welcome.client_id : "",
        name: "Prof. Ana",
        role: "speaker",
        language: "en",
      },
      { client_id: welcomeB.client_id, name: "Bo", role: "listener", language: "es" },
    ]);
    const { found } = await until(a, "user_joined");
    expect(found).toMatchObject({ type: "user_joined", name: "Prof. Ana" }); // A's own notice first
    expect((await until(a, "user_joined")).found).toEqual({
      type: "user_joined",
      client_count: 2,
      client_id: welcomeB.client_id,
      language: "es",
      name: "Bo",
      role: "listener",
    });
  });

  it("refuses a bad role or name with 4400 and a reason", async () => {
    const id = await newSession(key);
    const cases: [Record<string, string>, RegExp][] = [
      [{ role: "lecturer" }, /role must be speaker or listener/],
      [{ name: "x".repeat(65) }, /longer than 64 characters/],
      [{ name: "Ana\u0007" }, /control characters/],
      [{ name: "Ana\u202Eevil" }, /control characters/],
    ];
    for (const [query, reason] of cases) {
      const socket = await openRoom(id, { language: "en", ...query });
      expect(await socket.closeWithin()).toMatchObject({
        code: RoomClose.badRequest,
        reason: expect.stringMatching(reason),
      });
    }
    // 64 characters (an emoji counts as one) is fine
    await member(id, { language: "en", name: `${"x".repeat(63)}🎓` });
  });

  it("refuses a listener's audio with a message, and asks no engine for it", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const speaker = await member(id, { language: "en" });
    const listener = await member(id, { language: "es", role: "listener" });
    await until(speaker.socket, "partner_language");
    listener.socket.send(pcmFrame(true));
    expect(await next(listener.socket)).toEqual({
      type: "error",
      code: "listener",
      message: "you are a listener: your audio is not transcribed (the host can give you the floor)",
    });
    await expect(node.nextAssignment(500)).rejects.toThrow(/no frame within/);
    await silent(speaker.socket);
  });
});

describe("a lecture hall", () => {
  it("holds ROOM_MAX_PARTICIPANTS (100) participants; one speaker's final goes to all, translated once per distinct language, with its name", async () => {
    node = await FakeNode.connect("room-engine", 2);
    const id = await newSession(key);
    const started = Date.now();
    const lecturer = await member(id, { language: "en", name: "Prof. Ana", client_id: "lecturer-1" });
    const languages = ["es", "fr", "de", "en"];
    const listeners: { socket: TestSocket; language: string }[] = [];
    for (let i = 0; i < 99; i++) {
      const language = languages[i % languages.length] as string;
      const joined = await member(id, { language, role: "listener", name: `Student ${i}` });
      listeners.push({ socket: joined.socket, language });
    }
    console.log(`joined 100 participants in ${Date.now() - started} ms`);
    const full = await openRoom(id, { language: "en" });
    expect(await full.closeWithin()).toEqual({
      code: RoomClose.full,
      reason: "the room is full (100 participants)",
    });

    lecturer.socket.send(pcmFrame(true));
    const { session } = await node.acceptAssignment();
    // the engine translates each final once per distinct listener language (not once per listener)
    expect(await session.json()).toEqual({
      type: "config",
      language: "en",
      targets: ["de", "es", "fr"],
      interim_target: "es",
    });
    session.send({
      type: "final",
      text: "Welcome to the lecture.",
      start: 0,
      end: 1.5,
      language: "en",
      utterance_id: "lecture-1",
      translations: {
        es: "Bienvenidos a la clase.",
        fr: "Bienvenue au cours.",
        de: "Willkommen zur Vorlesung.",
      },
      translation_errors: [],
    });
    const expected: Record<string, string> = {
      en: "Welcome to the lecture.",
      es: "Bienvenidos a la clase.",
      fr: "Bienvenue au cours.",
      de: "Willkommen zur Vorlesung.",
    };
    for (const { socket, language } of listeners) {
      expect((await until(socket, "transcript", 5_000)).found).toMatchObject({
        is_mine: false,
        is_interim: false,
        translation: expected[language],
        translation_language: language,
        speaker: "lecturer-1",
        speaker_name: "Prof. Ana",
      });
    }
  }, 120_000);
});
