import { afterEach, describe, expect, it } from "vitest";
import { LiveClose } from "../../protocol/live.ts";
import { createKey } from "./helpers.ts";
import { FakeNode, type TestSocket, upgrade, waitForHealth } from "./live-helpers.ts";
import { join, newSession, next, openRoom, pcmFrame, until } from "./rooms-helpers.ts";

/**
 * Issue #19: a room link must not be a way to take every live-engine slot, nor someone else's place.
 * Room speakers count against the room creator's API key (LIVE_MAX_STREAMS_PER_KEY, the same ledger
 * as /ws and single-device sessions) and against ROOM_MAX_SPEAKERS; a participant comes back into its
 * place only with the secret resume token of its own welcome, never with the client_id everyone sees.
 */

let node: FakeNode | null = null;
const open: TestSocket[] = [];

afterEach(async () => {
  for (const socket of open.splice(0)) if (!socket.closedWith) socket.ws.close(1000, "test over");
  await node?.disconnect();
  node = null;
  await waitForHealth((h) => !h.asr_loaded && !h.busy);
});

async function member(conversationId: string, query: Record<string, string>) {
  const joined = await join(conversationId, query);
  open.push(joined.socket);
  return joined;
}

/** Opens a keyed live socket (/ws or /api/v1/ws/single). */
async function connect(path: string, key: string): Promise<TestSocket> {
  const { socket, response } = await upgrade(path, { authorization: `Bearer ${key}` });
  if (!socket) throw new Error(`${path} answered ${response.status}`);
  open.push(socket);
  return socket;
}

/** A single-device stream of `key` that an engine took. */
async function singleStream(key: string): Promise<TestSocket> {
  const client = await connect("/api/v1/ws/single", key);
  await (node as FakeNode).acceptAssignment();
  expect(await client.json()).toMatchObject({ type: "ready" });
  return client;
}

/** `speaker` talks; the engine the hub assigns dials in and gets the speaker's config. */
async function speak(speaker: TestSocket): Promise<TestSocket> {
  speaker.send(pcmFrame(true));
  const { session } = await (node as FakeNode).acceptAssignment();
  expect(await session.json()).toMatchObject({ type: "config" });
  return session;
}

/** Keeps talking until an engine is assigned (a slot freed elsewhere reaches the hub asynchronously). */
async function speakOnceFree(speaker: TestSocket): Promise<TestSocket> {
  for (let attempt = 0; ; attempt++) {
    speaker.send(pcmFrame(true));
    try {
      const { session } = await (node as FakeNode).acceptAssignment(250);
      expect(await session.json()).toMatchObject({ type: "config" });
      return session;
    } catch (error) {
      if (attempt >= 40) throw error;
    }
  }
}

/** Asserts the hub assigns nothing within `ms`. */
async function noAssignment(ms = 400): Promise<void> {
  await expect((node as FakeNode).nextAssignment(ms)).rejects.toThrow(/no frame within/);
}

describe("room speakers count against the creator's API key", () => {
  it("tells a speaker when the creator's key is at LIVE_MAX_STREAMS_PER_KEY; the room goes on once a slot frees", async () => {
    node = await FakeNode.connect("key-engine", 6);
    const { key } = await createKey("room-creator-busy");
    await singleStream(key);
    const second = await singleStream(key);
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    await member(id, { language: "es" });
    await until(a.socket, "partner_language");

    a.socket.send(pcmFrame(true));
    expect((await until(a.socket, "error")).found).toEqual({
      type: "error",
      code: "key_limit",
      message:
        "the room creator's API key already has 2 live streams open (the most it may have); this speech was not transcribed, try again when a stream ends",
    });
    await noAssignment();

    second.ws.close(1000, "done");
    await second.closed;
    await speakOnceFree(a.socket);
  });

  it("closes the creator key's next /ws and single-device connects with 4429 while two speakers hold streams", async () => {
    node = await FakeNode.connect("room-engine", 6);
    const { key } = await createKey("room-creator");
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    const b = await member(id, { language: "es" });
    await until(a.socket, "partner_language");
    const engineA = await speak(a.socket);
    await speak(b.socket);

    for (const path of ["/ws?language=en", "/api/v1/ws/single"]) {
      const refused = await connect(path, key);
      expect(await refused.json(), path).toEqual({
        type: "error",
        message: "this API key already has 2 live streams open (the most it may have); close one first",
      });
      expect((await refused.closeWithin()).code, path).toBe(LiveClose.tooManyStreams);
    }

    // a speaker's stream ends: the key's slot is free again for its own sockets
    engineA.send({ type: "ended" });
    await engineA.closeWithin();
    const client = await connect("/api/v1/ws/single", key);
    await node.acceptAssignment();
    expect(await client.json()).toMatchObject({ type: "ready" });
  });

  it("gives a third concurrent speaker an error and no engine (ROOM_MAX_SPEAKERS = 2)", async () => {
    node = await FakeNode.connect("speakers-engine", 6);
    const { key } = await createKey("room-speakers");
    const id = await newSession(key);
    const a = await member(id, { language: "en" });
    const b = await member(id, { language: "es" });
    const c = await member(id, { language: "fr" });
    await until(a.socket, "partner_language");
    await until(a.socket, "partner_language");
    await until(b.socket, "partner_language");
    const engineA = await speak(a.socket);
    await speak(b.socket);

    c.socket.send(pcmFrame(true));
    expect((await until(c.socket, "error")).found).toEqual({
      type: "error",
      code: "speaker_limit",
      message:
        "2 participants are already speaking (the most this room allows at once); this speech was not transcribed, try again when one stops",
    });
    await noAssignment();

    engineA.send({ type: "ended" });
    await engineA.closeWithin();
    await speakOnceFree(c.socket);
  });
});

describe("room identity", () => {
  it("a connect presenting another participant's client_id joins as someone new; only the resume token takes the place back", async () => {
    const { key } = await createKey("room-identity");
    const id = await newSession(key);
    const watcher = await member(id, { language: "es" });
    const a = await member(id, { language: "en", client_id: "victim-aaaa" });
    expect(a.clientId).toBe("victim-aaaa"); // a first connect may still choose its id
    // what everyone else hears of A: its client_id, never its token
    const joined = (await until(watcher.socket, "user_joined")).found;
    expect(joined).toEqual({
      type: "user_joined",
      client_count: 2,
      client_id: "victim-aaaa",
      language: "en",
      name: null,
      role: "speaker",
    });

    const thief = await member(id, { language: "en", client_id: "victim-aaaa" });
    expect(thief.clientId).not.toBe("victim-aaaa");
    expect(await next(a.socket)).toEqual({
      type: "user_joined",
      client_count: 3,
      client_id: thief.clientId,
      language: "en",
      name: null,
      role: "speaker",
    });
    expect(a.socket.closedWith).toBeNull();
    expect(a.resumeToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // while A's connection is down its place is kept for A, not for whoever names it
    a.socket.ws.close(4001, "network dropped");
    await a.socket.closed;
    const again = await member(id, { language: "en", client_id: "victim-aaaa" });
    expect(again.clientId).not.toBe("victim-aaaa");
    const guessed = await member(id, {
      language: "en",
      client_id: "victim-aaaa",
      resume: "A".repeat(43),
    });
    expect(guessed.clientId).not.toBe("victim-aaaa");

    // A's own token brings it back, with a fresh token; the spent one no longer works
    const back = await member(id, { language: "en", resume: a.resumeToken });
    expect(back.clientId).toBe("victim-aaaa");
    expect(back.resumeToken).not.toBe(a.resumeToken);
    const replay = await member(id, { language: "en", resume: a.resumeToken });
    expect(replay.clientId).not.toBe("victim-aaaa");
    expect(back.socket.closedWith).toBeNull();
  });

  it("refuses a malformed resume token with 4400", async () => {
    const { key } = await createKey("room-identity-bad");
    const id = await newSession(key);
    const socket = await openRoom(id, { language: "en", resume: "short" });
    expect(await socket.closeWithin()).toMatchObject({ code: 4400, reason: expect.stringMatching(/resume/) });
  });
});
